"""chipperf inference case swinTransformer (PyTorch model; engines: see common.engines).

Data: an ImageNet-layout folder, pre-processed on the host as for resnet50. Model: Swin-B,
patch 4, window 7 (FlagPerf's swinTransformer is torchvision's swin_b; here transformers'
SwinForImageClassification built from its config: embedding 128, depths 2-2-18-2, heads
4-8-16-32; 87,768,224 parameters and 30.9 GFLOPs per 224-pixel image with 1000 classes,
counted in the tests). ``model_size: tiny`` is the CI shape. Output: logits
[batch, num_classes]; each item is scored by its top-1 class.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

import sys
from typing import Any, Mapping

from torch import nn

from chipperf_runtime.inference.classify import image_case
from chipperf_runtime.inference.models.hf_vision import classifier, preset_of
from chipperf_runtime.inference.runner import main

PRESETS = {
    # Swin-Base, patch 4, window 7 (torchvision's swin_b)
    "base": {"patch_size": 4, "embed_dim": 128, "depths": [2, 2, 18, 2],
             "num_heads": [4, 8, 16, 32], "window_size": 7},
    # CI: two stages of 2 blocks, 32 channels, windows of 4 on 2-pixel patches
    "tiny": {"patch_size": 2, "embed_dim": 32, "depths": [2, 2], "num_heads": [2, 4],
             "window_size": 4},
}


def build(config: Mapping[str, Any]) -> nn.Module:
    return classifier("swin", preset_of(PRESETS, config["model_size"]), config["num_classes"],
                      config["image_size"])


CASE = image_case("swinTransformer", build)

if __name__ == "__main__":
    sys.exit(main(CASE))
