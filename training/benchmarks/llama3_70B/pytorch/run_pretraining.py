"""llama3_70B / PyTorch: Llama-3-70B (transformers' LlamaForCausalLM, built from its config)
trained as a causal LM with tensor parallelism (DTensor) inside a node, pipeline stages
(torch.distributed.pipelining) and FSDP2 across, under torchrun; FlagPerf's llama3_70B laid out
as its Megatron configs lay it out (TP 8 x PP 4).

The mesh, pipeline, model building, loop and FINISHED are the shared LLM case
(``llmtrain``); this file holds the model presets. See README.md.
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
    # Meta's Llama-3-70B (config.json of meta-llama/Meta-Llama-3-70B): 80 x 8192, 64 query
    # heads over 8 key/value heads, SwiGLU 28672, RoPE theta 500000, 128256 tokens, untied
    "70b": {"vocab_size": 128256, "hidden_size": 8192, "intermediate_size": 28672,
            "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
            "max_position_embeddings": 8192, "rope_theta": 500000.0, "rms_norm_eps": 1e-5,
            "tie_word_embeddings": False},
    # CI: llama3_8B's tiny block (GQA 4 over 2, 128 wide) 4 layers deep, so that 4 pipeline
    # stages have a layer each, on the 259 byte-level ids of prepare_data.py's corpus
    "tiny": {"vocab_size": 259, "hidden_size": 128, "intermediate_size": 352,
             "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
             "max_position_embeddings": 512, "rope_theta": 500000.0, "rms_norm_eps": 1e-5,
             "tie_word_embeddings": False},
}
SPEC = LLMSpec(LlamaForCausalLM, LlamaConfig, PRESETS,
               "training/benchmarks/llama3_70B/pytorch/prepare_data.py")

if __name__ == "__main__":
    run_case(lambda: main("llama3_70B", CASE_DIR, SPEC), quick_exit=True)
