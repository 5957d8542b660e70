"""mixtral_8x7B_continuetrain / PyTorch: Mixtral-8x7B (transformers' MixtralForCausalLM)
continued from a checkpoint (the ``checkpoint`` folder under the data dir, written by
mixtral_8x7B's ``save_checkpoint``), trained as a causal LM with FSDP2 under torchrun.

The mesh, model building, checkpoint, loop and FINISHED are the shared LLM case
(``llmtrain``); the model presets are model.json (mixtral_8x7B's). See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from transformers import MixtralConfig, MixtralForCausalLM

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.llmtrain.case import LLMSpec, main
from chipperf_runtime.training.llmtrain.llama import read_presets

CASE_DIR = Path(__file__).resolve().parent
SPEC = LLMSpec(MixtralForCausalLM, MixtralConfig, read_presets(CASE_DIR),
               "training/benchmarks/mixtral_8x7B_continuetrain/pytorch/prepare_data.py", moe=True)

if __name__ == "__main__":
    run_case(lambda: main("mixtral_8x7B_continuetrain", CASE_DIR, SPEC), quick_exit=True)
