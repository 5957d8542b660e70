"""swin_transformer / PyTorch: Swin-T (transformers' SwinForImageClassification, built from its config)
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
    # Swin-Tiny, patch 4, window 7 (FlagPerf's swin_transformer): 28,288,354 params
    "base": {"patch_size": 4, "embed_dim": 96, "depths": [2, 2, 6, 2],
             "num_heads": [3, 6, 12, 24], "window_size": 7, "drop_path_rate": 0.2},
    # CI: two stages of 2 blocks, 32 channels, windows of 4 on 2-pixel patches
    "tiny": {"patch_size": 2, "embed_dim": 32, "depths": [2, 2], "num_heads": [2, 4],
             "window_size": 4, "drop_path_rate": 0.0},
}
FULL_SIZE = {"model_size": "base", "classes": 1000, "image_size": 224}
IMAGE_MODEL = hf_image_model("swin_transformer", PRESETS)

if __name__ == "__main__":
    run_case(lambda: main("swin_transformer", CASE_DIR, IMAGE_MODEL), quick_exit=True)
