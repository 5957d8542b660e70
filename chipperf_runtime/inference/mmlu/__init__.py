"""FlagPerf's four MMLU accuracy cases (llama2_7b_mmlu, llama3_8b_mmlu, deepseek_7b_mmlu,
Aquila_7b_mmlu): a causal LM from local files answers MMLU's multiple-choice questions,
few-shot, one forward pass per question (docs/inference.md, "MMLU")."""
