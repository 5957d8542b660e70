"""llama3_8B / PyTorch: Llama-3-8B (transformers' LlamaForCausalLM, built from its config)
trained as a causal LM to an eval-loss target with tensor parallelism (DTensor) inside a
node and FSDP2 across nodes, under torchrun.

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
    # Meta's Llama-3-8B (config.json of meta-llama/Meta-Llama-3-8B): 32 x 4096, 32 query
    # heads over 8 key/value heads, SwiGLU 14336, RoPE theta 500000, 128256 tokens, untied
    "8b": {"vocab_size": 128256, "hidden_size": 4096, "intermediate_size": 14336,
           "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
           "max_position_embeddings": 8192, "rope_theta": 500000.0, "rms_norm_eps": 1e-5,
           "tie_word_embeddings": False},
    # One GPU: Llama-3.2-1B's published shape (config.json of meta-llama/Llama-3.2-1B): 16 x
    # 2048, 32 query heads (head_dim 64) over 8 key/value heads, SwiGLU 8192, RoPE theta 500000
    # with the llama3 frequency scaling, 128256 tokens, lm_head tied to the input embedding
    # (1,235,814,400 parameters; one process only: see llmtrain.case.model_config)
    "1b": {"vocab_size": 128256, "hidden_size": 2048, "intermediate_size": 8192,
           "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
           "max_position_embeddings": 131072, "rope_theta": 500000.0, "rms_norm_eps": 1e-5,
           "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                            "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
           "tie_word_embeddings": True},
    # CI: the same shape of block (GQA 4 over 2) at 2 x 128, on the 259 byte-level ids of
    # prepare_data.py's corpus
    "tiny": {"vocab_size": 259, "hidden_size": 128, "intermediate_size": 352,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "max_position_embeddings": 512, "rope_theta": 500000.0, "rms_norm_eps": 1e-5,
             "tie_word_embeddings": False},
}
SPEC = LLMSpec(LlamaForCausalLM, LlamaConfig, PRESETS,
               "training/benchmarks/llama3_8B/pytorch/prepare_data.py")

if __name__ == "__main__":
    run_case(lambda: main("llama3_8B", CASE_DIR, SPEC), quick_exit=True)
