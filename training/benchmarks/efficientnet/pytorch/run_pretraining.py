"""efficientnet / PyTorch: EfficientNet-V2-S (torchvision's ``efficientnet_v2_s``, FlagPerf's
efficientnet model) trained from scratch to a top-1 target on ImageNet-layout folders, DDP
under torchrun.

The loop, data and FINISHED are the shared image-classification case (imagecls); this file
holds only the model presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import import_torchvision, prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from functools import partial
from pathlib import Path

from torch import nn

from chipperf_runtime.models.tvision import prepare_torchvision
from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.imagecls.case import main
from chipperf_runtime.training.imagecls.models import tv_image_model

CASE_DIR = Path(__file__).resolve().parent
tv_efficientnet = import_torchvision().models.efficientnet


def v2_s(classes: int, image_size: int) -> nn.Module:
    """EfficientNet-V2-S as torchvision builds it (dropout 0.2, stochastic depth 0.2):
    21,458,488 parameters with 1000 classes; any image size."""
    return tv_efficientnet.efficientnet_v2_s(weights=None, num_classes=classes)


def tiny(classes: int, image_size: int) -> nn.Module:
    """The CI model: torchvision's EfficientNet class with V2-S's block kinds and norm layer,
    four one-block stages 8 to 64 channels wide, a 256-channel head, no dropout."""
    fused, mbconv = tv_efficientnet.FusedMBConvConfig, tv_efficientnet.MBConvConfig
    stages = [fused(1, 3, 1, 8, 8, 1), fused(4, 3, 2, 8, 16, 1),
              mbconv(4, 3, 2, 16, 32, 1), mbconv(6, 3, 2, 32, 64, 1)]
    return tv_efficientnet.EfficientNet(stages, dropout=0.0, stochastic_depth_prob=0.0,
                                        num_classes=classes, last_channel=256,
                                        norm_layer=partial(nn.BatchNorm2d, eps=1e-3))


PRESETS = {"base": v2_s, "tiny": tiny}
# FlagPerf trains at 300 pixels (and evaluates at 384; this case evaluates at image_size)
FULL_SIZE = {"model_size": "base", "classes": 1000, "image_size": 300}
IMAGE_MODEL = tv_image_model(PRESETS)

if __name__ == "__main__":
    run_case(lambda: main("efficientnet", CASE_DIR, IMAGE_MODEL), quick_exit=True)
