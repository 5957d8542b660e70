"""llava1.5_13b / PyTorch: LLaVA-1.5-13B (transformers' LlavaForConditionalGeneration: CLIP
ViT-L/14-336, the mlp2x_gelu projector, Vicuna-13B's Llama-2 decoder; built from its config)
trained in FlagPerf's two stages (``stage``: pretrain, the projector only; finetune, the
projector and the LLM; both, one after the other as FlagPerf runs them, the default) on
FlagPerf's LLaVA conversation jsons + image folders, to eval-loss targets, FSDP2 data parallel
under torchrun: llava1.5_7b's case at 13B.

The model's build, data, loop and FINISHED are ``llmtrain.llava``, its size presets
``llmtrain.llava_presets.LLAVA_13B``. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.llmtrain.llava import LlavaSpec, main
from chipperf_runtime.training.llmtrain.llava_presets import LLAVA_13B as PRESETS

CASE_DIR = Path(__file__).resolve().parent
SPEC = LlavaSpec(PRESETS, "training/benchmarks/llava1.5_13b/pytorch/prepare_data.py")

if __name__ == "__main__":
    run_case(lambda: main("llava1.5_13b", CASE_DIR, SPEC), quick_exit=True)
