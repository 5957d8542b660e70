"""llama3_70B_continuetrain / PyTorch: Meta's Llama-3-70B continued from a checkpoint (the
``checkpoint`` folder under the data dir, written by llama3_70B's ``save_checkpoint``) on the
shared Llama entry, chipperf_runtime/training/llmtrain/llama.py, over the presets in model.json.
"""
from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from chipperf_runtime.training.llmtrain.llama import llama_case, run_llama

CASE_DIR, SPEC = llama_case(Path(__file__).resolve().parent)
if __name__ == "__main__":
    run_llama(CASE_DIR, SPEC)
