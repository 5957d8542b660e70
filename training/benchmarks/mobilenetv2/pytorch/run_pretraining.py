"""mobilenetv2 / PyTorch: MobileNetV2 1.0 (torchvision's ``mobilenet_v2``, FlagPerf's
mobilenetv2) trained from scratch to a top-1 target on ImageNet-layout folders, DDP under
torchrun.

The loop, data and FINISHED are the shared image-classification case (imagecls); this file
holds only the model presets. See README.md.
"""

from __future__ import annotations

from pathlib import Path

from driver import run_case
from imagecls.case import main
from imagecls.models import tv_image_model
from torch import nn

from chipperf.models.tvision import import_torchvision

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
