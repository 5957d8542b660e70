"""mobilenetv2 / PyTorch: MobileNetV2 1.0 (torchvision's ``mobilenet_v2``, FlagPerf's
mobilenetv2) trained from scratch to a top-1 target on ImageNet-layout folders, DDP under
torchrun.

The loop, data and FINISHED are the shared image-classification case (imagecls); this file
holds only the model presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import import_torchvision, prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from torch import nn

from chipperf_runtime.models.tvision import prepare_torchvision
from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.imagecls.case import main
from chipperf_runtime.training.imagecls.models import tv_image_model

CASE_DIR = Path(__file__).resolve().parent
tv_mobilenet = import_torchvision().models.mobilenetv2


def base(classes: int, image_size: int) -> nn.Module:
    """MobileNetV2 width 1.0 as torchvision builds it (dropout 0.2): 3,504,872 parameters
    with 1000 classes; any image size."""
    return tv_mobilenet.mobilenet_v2(weights=None, num_classes=classes)


def tiny(classes: int, image_size: int) -> nn.Module:
    """The CI model: the same network at width 0.35 (the 1280-channel last layer kept, as
    torchvision keeps it below width 1), no dropout."""
    return tv_mobilenet.mobilenet_v2(weights=None, num_classes=classes, width_mult=0.35,
                                     dropout=0.0)


PRESETS = {"base": base, "tiny": tiny}
FULL_SIZE = {"model_size": "base", "classes": 1000, "image_size": 224}
IMAGE_MODEL = tv_image_model(PRESETS)

if __name__ == "__main__":
    run_case(lambda: main("mobilenetv2", CASE_DIR, IMAGE_MODEL), quick_exit=True)
