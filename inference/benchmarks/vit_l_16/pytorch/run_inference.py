"""chipperf inference case vit_l_16 (PyTorch model; engines: see common.engines).

Data: an ImageNet-layout folder, pre-processed on the host as for resnet50. Model: ViT-L/16
(transformers' ViTForImageClassification built from its config: 24 layers x 1024, 16 heads,
MLP 4096, 16-pixel patches; 304,326,632 parameters and 123.1 GFLOPs per 224-pixel image with
1000 classes, counted in the tests). ``model_size: tiny`` is the CI shape. Output: logits
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
    # ViT-Large/16 (torchvision's vit_l_16, google/vit-large-patch16-224: FlagPerf's vit_l_16)
    "large": {"patch_size": 16, "hidden_size": 1024, "num_hidden_layers": 24,
              "num_attention_heads": 16, "intermediate_size": 4096},
    # CI: 2 x 64, 4 heads, patches of 4 pixels
    "tiny": {"patch_size": 4, "hidden_size": 64, "num_hidden_layers": 2,
             "num_attention_heads": 4, "intermediate_size": 128},
}


def build(config: Mapping[str, Any]) -> nn.Module:
    return classifier("vit", preset_of(PRESETS, config["model_size"]), config["num_classes"],
                      config["image_size"])


CASE = image_case("vit_l_16", build)

if __name__ == "__main__":
    sys.exit(main(CASE))
