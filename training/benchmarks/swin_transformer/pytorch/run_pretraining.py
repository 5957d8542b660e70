"""swin_transformer / PyTorch: Swin-T (torchvision's ``swin_t``, FlagPerf's swin_transformer)
trained from scratch to a top-1 target on ImageNet-layout folders, DDP under torchrun.

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
tv_swin = import_torchvision().models.swin_transformer


def base(classes: int, image_size: int) -> nn.Module:
    """Swin-Tiny as torchvision builds it: patch 4, window 7, 96 channels, depths 2-2-6-2,
    heads 3-6-12-24, stochastic depth 0.2; 28,288,354 parameters with 1000 classes."""
    return tv_swin.swin_t(weights=None, num_classes=classes)


def tiny(classes: int, image_size: int) -> nn.Module:
    """The CI model: torchvision's SwinTransformer, two stages of 2 blocks, 32 channels,
    2 and 4 heads, windows of 4 on 2-pixel patches, no stochastic depth."""
    return tv_swin.SwinTransformer(patch_size=[2, 2], embed_dim=32, depths=[2, 2],
                                   num_heads=[2, 4], window_size=[4, 4],
                                   stochastic_depth_prob=0.0, num_classes=classes)


PRESETS = {"base": base, "tiny": tiny}
FULL_SIZE = {"model_size": "base", "classes": 1000, "image_size": 224}
IMAGE_MODEL = tv_image_model(PRESETS)

if __name__ == "__main__":
    run_case(lambda: main("swin_transformer", CASE_DIR, IMAGE_MODEL), quick_exit=True)
