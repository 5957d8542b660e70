"""efficientnet / PyTorch: EfficientNet-B0 (transformers' EfficientNetForImageClassification,
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
    # EfficientNet-B0 (width 1.0, depth 1.0, 1280 head channels): 5,288,548 params
    "base": {"width_coefficient": 1.0, "depth_coefficient": 1.0, "hidden_dim": 1280,
             "dropout_rate": 0.2, "drop_connect_rate": 0.2},
    # CI: width and depth x 0.25 (320 head channels)
    "tiny": {"width_coefficient": 0.25, "depth_coefficient": 0.25, "hidden_dim": 320,
             "dropout_rate": 0.0, "drop_connect_rate": 0.0},
}
FULL_SIZE = {"model_size": "base", "classes": 1000, "image_size": 224}
IMAGE_MODEL = hf_image_model("efficientnet", PRESETS)

if __name__ == "__main__":
    run_case(lambda: main("efficientnet", CASE_DIR, IMAGE_MODEL), quick_exit=True)
