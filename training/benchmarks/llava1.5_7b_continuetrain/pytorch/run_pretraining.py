"""llava1.5_7b_continuetrain / PyTorch: LLaVA-1.5-7B (transformers' LlavaForConditionalGeneration,
llava1.5_7b's model and presets) continued from a checkpoint (the ``checkpoint`` folder under
the data dir, written by llava1.5_7b's ``save_checkpoint``): every weight loaded, then the
projector trained on FlagPerf's LLaVA-Pretrain captions under the frozen CLIP tower and Vicuna
decoder (FlagScale's LLaVA-1.5 recipe: freeze_ViT, freeze_LM), FSDP2 data parallel under
torchrun, to an eval-loss target.

The model's build, data, checkpoint, loop and FINISHED are ``llmtrain.llava`` (stage
"pretrain"); this file names the presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.llmtrain.llava import LlavaSpec, main
from chipperf_runtime.training.llmtrain.llava_presets import LLAVA_7B as PRESETS

CASE_DIR = Path(__file__).resolve().parent
SPEC = LlavaSpec(PRESETS, "training/benchmarks/llava1.5_7b_continuetrain/pytorch/prepare_data.py")

if __name__ == "__main__":
    run_case(lambda: main("llava1.5_7b_continuetrain", CASE_DIR, SPEC), quick_exit=True)
