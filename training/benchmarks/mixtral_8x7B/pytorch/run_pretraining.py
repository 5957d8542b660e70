"""mixtral_8x7B / PyTorch: Mixtral-8x7B (transformers' MixtralForCausalLM, built from its
config), a sparse mixture of experts, trained as a causal LM to an eval-loss target with
tensor parallelism inside a node (DTensor for attention, every expert's SwiGLU width split
the same way) and FSDP2 across nodes, under torchrun.

The mesh, model building, loop and FINISHED are the shared LLM case (``llmtrain``); this
file holds the model presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from transformers import MixtralConfig, MixtralForCausalLM

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.llmtrain.case import LLMSpec, main

CASE_DIR = Path(__file__).resolve().parent
PRESETS = {
    # Mistral AI's Mixtral-8x7B-v0.1 (its config.json): 32 x 4096, 32 query heads over 8
    # key/value heads, 8 SwiGLU experts of 14336 per layer with 2 routed per token, RoPE
    # theta 1e6, Llama 2's 32000-token vocabulary, untied lm_head
    "8x7b": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336,
             "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
             "num_local_experts": 8, "num_experts_per_tok": 2,
             "max_position_embeddings": 32768, "rope_theta": 1e6, "rms_norm_eps": 1e-5,
             "tie_word_embeddings": False},
    # CI: 2 x 128, GQA 4 over 2, 4 experts of 176 with 2 routed (the same active width as
    # llama3_8B's tiny), on the first 259 ids of Mixtral's vocabulary (prepare_data.py)
    "tiny": {"vocab_size": 259, "hidden_size": 128, "intermediate_size": 176,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "num_local_experts": 4, "num_experts_per_tok": 2,
             "max_position_embeddings": 512, "rope_theta": 1e6, "rms_norm_eps": 1e-5,
             "tie_word_embeddings": False},
}
SPEC = LLMSpec(MixtralForCausalLM, MixtralConfig, PRESETS,
               "training/benchmarks/mixtral_8x7B/pytorch/prepare_data.py", moe=True)

if __name__ == "__main__":
    run_case(lambda: main("mixtral_8x7B", CASE_DIR, SPEC), quick_exit=True)
