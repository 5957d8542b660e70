"""aquila2_70B / PyTorch: BAAI's Aquila2-70B (a Llama-architecture decoder, 100,008 tokens,
4k context) on the shared Llama entry, chipperf_runtime/training/llmtrain/llama.py, over the
presets in model.json (README.md, "Model").
"""
from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from chipperf_runtime.training.llmtrain.llama import llama_case, run_llama

CASE_DIR, SPEC = llama_case(Path(__file__).resolve().parent)
if __name__ == "__main__":
    run_llama(CASE_DIR, SPEC)
