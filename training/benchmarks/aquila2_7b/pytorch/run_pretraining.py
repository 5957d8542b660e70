"""aquila2_7b / PyTorch: BAAI's Aquila2-7B, a Llama-architecture decoder (transformers'
LlamaForCausalLM, built from its config), trained as a causal LM to an eval-loss target with
FSDP2 (and optionally DTensor tensor parallelism inside a node) under torchrun.

The mesh, model building, loop and FINISHED are the shared LLM case (``llmtrain``); this
file holds the model presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from transformers import LlamaConfig, LlamaForCausalLM

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.llmtrain.case import LLMSpec, main

CASE_DIR = Path(__file__).resolve().parent
PRESETS = {
    # BAAI/Aquila2-7B's config.json (model_type "aquila", the Llama block): 32 x 4096, 32
    # heads with no grouping, SwiGLU 11008, 2048 positions, RMSNorm eps 1e-5, RoPE theta
    # 10000 (Llama's default: the config names none), its 100008-token vocabulary, untied
    # lm_head. Source: README.md, "Model".
    "7b": {"vocab_size": 100008, "hidden_size": 4096, "intermediate_size": 11008,
           "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
           "max_position_embeddings": 2048, "rope_theta": 10000.0, "rms_norm_eps": 1e-5,
           "tie_word_embeddings": False},
    # CI: the same block (multi-head, no grouping) at 2 x 128, on the 259 byte-level ids of
    # prepare_data.py's corpus
    "tiny": {"vocab_size": 259, "hidden_size": 128, "intermediate_size": 352,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
             "max_position_embeddings": 512, "rope_theta": 10000.0, "rms_norm_eps": 1e-5,
             "tie_word_embeddings": False},
}
SPEC = LLMSpec(LlamaForCausalLM, LlamaConfig, PRESETS,
               "training/benchmarks/aquila2_7b/pytorch/prepare_data.py")

if __name__ == "__main__":
    run_case(lambda: main("aquila2_7b", CASE_DIR, SPEC), quick_exit=True)
