"""qwen1.5_MoE / PyTorch: Qwen1.5-MoE-A2.7B (transformers' Qwen2MoeForCausalLM, built from its
config), a fine-grained mixture of experts with a shared expert, trained as a causal LM to an
eval-loss target with FSDP2 (and optionally tensor parallelism inside a node: attention and
every routed expert split, the shared expert replicated) under torchrun.

The mesh, model building, loop and FINISHED are the shared LLM case (``llmtrain``); this
file holds the model presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from transformers import Qwen2MoeConfig, Qwen2MoeForCausalLM

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.llmtrain.case import LLMSpec, main

CASE_DIR = Path(__file__).resolve().parent
PRESETS = {
    # Qwen/Qwen1.5-MoE-A2.7B's config.json: 24 x 2048, 16 heads with Q/K/V biases, in every
    # layer 60 routed SwiGLU experts of 1408 with 4 per token (weights not renormalised) and
    # a shared expert of 5632 behind a sigmoid gate, RoPE theta 1e6, 8192 positions,
    # 151936-token vocabulary, untied lm_head. Source: README.md, "Model".
    "a2.7b": {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632,
              "num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 16,
              "num_experts": 60, "num_experts_per_tok": 4, "moe_intermediate_size": 1408,
              "shared_expert_intermediate_size": 5632, "norm_topk_prob": False,
              "decoder_sparse_step": 1, "qkv_bias": True,
              "max_position_embeddings": 8192, "rope_theta": 1e6, "rms_norm_eps": 1e-6,
              "tie_word_embeddings": False},
    # CI: the same block at 2 x 128: 8 routed experts of 64 with 4 per token and a shared
    # expert of 176, on the 259 byte-level ids of prepare_data.py's corpus
    "tiny": {"vocab_size": 259, "hidden_size": 128, "intermediate_size": 352,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
             "num_experts": 8, "num_experts_per_tok": 4, "moe_intermediate_size": 64,
             "shared_expert_intermediate_size": 176, "norm_topk_prob": False,
             "decoder_sparse_step": 1, "qkv_bias": True,
             "max_position_embeddings": 512, "rope_theta": 1e6, "rms_norm_eps": 1e-6,
             "tie_word_embeddings": False},
}
SPEC = LLMSpec(Qwen2MoeForCausalLM, Qwen2MoeConfig, PRESETS,
               "training/benchmarks/qwen1.5_MoE/pytorch/prepare_data.py", moe=True)

if __name__ == "__main__":
    run_case(lambda: main("qwen1.5_MoE", CASE_DIR, SPEC), quick_exit=True)
