"""llama2_7b_finetune / PyTorch: LoRA fine-tuning of Llama-2-7B (transformers'
LlamaForCausalLM, built from its config; peft's LoRA adapters on the attention's query and
value maps, the base frozen) on FlagPerf's SAMSum dialogue-summary data, to an eval-loss
target, FSDP2 data parallel under torchrun.

The mesh, model building, loop and FINISHED are the shared LLM case (``llmtrain``, LoRA in
``llmtrain/lora.py``, the data in ``textlm/samsum.py``); this file holds the model presets.
See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from transformers import LlamaConfig, LlamaForCausalLM

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.llmtrain.case import LLMSpec, main
from chipperf_runtime.training.textlm.samsum import open_samsum

CASE_DIR = Path(__file__).resolve().parent
PRESETS = {
    # meta-llama/Llama-2-7b-hf's config.json: 32 x 4096, 32 heads with no grouping, SwiGLU
    # 11008, RMSNorm eps 1e-5, RoPE theta 10000, 32000-token vocabulary, untied lm_head;
    # 4096 positions (FlagPerf's README: its case sets max_position_embeddings to 4096).
    "7b": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
           "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
           "max_position_embeddings": 4096, "rope_theta": 10000.0, "rms_norm_eps": 1e-5,
           "tie_word_embeddings": False},
    # CI: the same block at 2 x 128 on the 259 byte-level ids of textlm/samsum.py. Its
    # frozen base is random, not pretrained: at width 128 transformers' initializer_range
    # 0.02 leaves the frozen lm_head able to reach logits of only about 0.02 x 128 = 2.6
    # (|row| x |RMS-normed state|), so no adapter could fit the data; std 0.1 lifts that
    # bound to about 13 (README, "CI").
    "tiny": {"vocab_size": 259, "hidden_size": 128, "intermediate_size": 352,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
             "max_position_embeddings": 512, "rope_theta": 10000.0, "rms_norm_eps": 1e-5,
             "tie_word_embeddings": False, "initializer_range": 0.1},
}
SPEC = LLMSpec(LlamaForCausalLM, LlamaConfig, PRESETS,
               "training/benchmarks/llama2_7b_finetune/pytorch/prepare_data.py", lora=True,
               open_data=open_samsum)

if __name__ == "__main__":
    run_case(lambda: main("llama2_7b_finetune", CASE_DIR, SPEC), quick_exit=True)
