"""mobilenetv2 / PyTorch: MobileNetV2 1.0 (transformers' MobileNetV2ForImageClassification,
built from its config)
trained from scratch to a top-1 target on ImageNet-layout folders, DDP under torchrun.

The loop, data and FINISHED are the shared image-classification case (imagecls); this file
holds only the model presets. See README.md.
"""

from __future__ import annotations

from pathlib import Path

from driver import run_case
from imagecls.case import main
from imagecls.hf import hf_image_model

CASE_DIR = Path(__file__).resolve().parent
PRESETS = {
    # MobileNetV2 1.0 (torchvision's mobilenet_v2, FlagPerf's mobilenetv2): 3,504,872 params
    "base": {"depth_multiplier": 1.0, "classifier_dropout_prob": 0.2},
    # CI: width x 0.35
    "tiny": {"depth_multiplier": 0.35, "classifier_dropout_prob": 0.0},
}
FULL_SIZE = {"model_size": "base", "classes": 1000, "image_size": 224}
IMAGE_MODEL = hf_image_model("mobilenetv2", PRESETS)

if __name__ == "__main__":
    run_case(lambda: main("mobilenetv2", CASE_DIR, IMAGE_MODEL), quick_exit=True)
