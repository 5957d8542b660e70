"""LLM serving cases (llama3_8b): prompts, generation engines, scenarios, serving metrics.

``runner.main`` is the flow a causal-LM case entry hands itself to; see docs/inference.md,
section "LLM serving (llama3_8b)".
"""
