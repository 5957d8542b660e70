"""vit / PyTorch: ViT-B/16 (transformers' ViTForImageClassification, built from its config)
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
    # ViT-Base/16 (timm's vit_base_patch16_224, FlagPerf's vit): 12 x 768, 12 heads, MLP 3072
    "base": {"patch_size": 16, "hidden_size": 768, "num_hidden_layers": 12,
             "num_attention_heads": 12, "intermediate_size": 3072},
    # CI: 2 x 64, patches of 4 pixels (64 patches at 32 x 32)
    "tiny": {"patch_size": 4, "hidden_size": 64, "num_hidden_layers": 2,
             "num_attention_heads": 4, "intermediate_size": 128,
             "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0},
}
FULL_SIZE = {"model_size": "base", "classes": 1000, "image_size": 224}
IMAGE_MODEL = hf_image_model("vit", PRESETS)

if __name__ == "__main__":
    run_case(lambda: main("vit", CASE_DIR, IMAGE_MODEL), quick_exit=True)
