"""vit / PyTorch: ViT-B/16 (torchvision's ``vit_b_16``, FlagPerf's vit) trained from scratch
to a top-1 target on ImageNet-layout folders, DDP under torchrun.

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
tv_vit = import_torchvision().models.vision_transformer


def base(classes: int, image_size: int) -> nn.Module:
    """ViT-Base/16 as torchvision builds it (timm's vit_base_patch16_224, FlagPerf's vit):
    12 layers of 768, 12 heads, MLP 3072; 86,567,656 parameters with 1000 classes at 224."""
    return tv_vit.vit_b_16(weights=None, num_classes=classes, image_size=image_size)


def tiny(classes: int, image_size: int) -> nn.Module:
    """The CI model: torchvision's VisionTransformer, 2 layers of 64, 4 heads, MLP 128,
    patches of 4 pixels (64 patches at 32 x 32), no dropout."""
    return tv_vit.VisionTransformer(image_size=image_size, patch_size=4, num_layers=2,
                                    num_heads=4, hidden_dim=64, mlp_dim=128,
                                    num_classes=classes)


PRESETS = {"base": base, "tiny": tiny}
FULL_SIZE = {"model_size": "base", "classes": 1000, "image_size": 224}
IMAGE_MODEL = tv_image_model(PRESETS)

if __name__ == "__main__":
    run_case(lambda: main("vit", CASE_DIR, IMAGE_MODEL), quick_exit=True)
