"""llama2_70B / PyTorch: Meta's Llama-2-70B at 4k context, laid out as FlagPerf's Megatron
config lays it out (TP 8 x PP 4); its shapes are model.json's, the rest is llmtrain's (README.md).
"""
from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from chipperf_runtime.training.llmtrain.llama import llama_case, run_llama

CASE_DIR, SPEC = llama_case(Path(__file__).resolve().parent)
if __name__ == "__main__":
    run_llama(CASE_DIR, SPEC)
