"""bigtransfer / PyTorch: Big Transfer's BiT-M-R152x2 network (timm's ``resnetv2_152x2_bit``:
a pre-activation ResNet-152 twice as wide, weight-standardised convolutions, GroupNorm;
FlagPerf's bigtransfer) trained from scratch to a top-1 target on ImageNet-layout folders,
DDP under torchrun.

The loop, data and FINISHED are the shared image-classification case (imagecls); this file
holds only the model presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (timm imports it) beside a CPU torch

from functools import partial
from pathlib import Path

import timm
from timm.layers import GroupNormAct, StdConv2d
from timm.models.resnetv2 import ResNetV2
from torch import nn

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.imagecls.case import main
from chipperf_runtime.training.imagecls.models import tv_image_model

CASE_DIR = Path(__file__).resolve().parent


def r152x2(classes: int, image_size: int) -> nn.Module:
    """BiT-M-R152x2 as timm builds it (layers 3, 8, 36, 3; width x 2; no weights):
    236,335,208 parameters with 1000 classes (FlagPerf's ResNetV2([3, 8, 36, 3], 2, 1000)
    has the same); any image size."""
    return timm.create_model("resnetv2_152x2_bit", pretrained=False, num_classes=classes)


def tiny(classes: int, image_size: int) -> nn.Module:
    """The CI model: timm's ResNetV2 with BiT's stem and weight-standardised convolutions,
    four one-block stages 32 to 256 channels wide, GroupNorm of 8 groups (BiT's 32 need
    wider layers)."""
    return ResNetV2(layers=[1, 1, 1, 1], channels=(32, 64, 128, 256), num_classes=classes,
                    stem_chs=16, stem_type="fixed", conv_layer=partial(StdConv2d, eps=1e-8),
                    norm_layer=partial(GroupNormAct, num_groups=8))


PRESETS = {"r152x2": r152x2, "tiny": tiny}
# FlagPerf trains on 480 x 480 crops of 512 x 512 resizes and evaluates at 480
FULL_SIZE = {"model_size": "r152x2", "classes": 1000, "image_size": 480}
IMAGE_MODEL = tv_image_model(PRESETS)

if __name__ == "__main__":
    run_case(lambda: main("bigtransfer", CASE_DIR, IMAGE_MODEL), quick_exit=True)
