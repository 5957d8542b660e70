"""detr / PyTorch: transformers' DETR (DetrForObjectDetection) on transformers' ResNet-50,
trained from scratch (no weights, no timm) to a COCO box mAP target on COCO 2017, DDP under
torchrun.

The data, loop, mAP and FINISHED are the shared detection case (detection; DETR behind
torchvision's detector interface: detection/detr.py); this file holds only the model
presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from chipperf_runtime.training.detection.case import main
from chipperf_runtime.training.driver import run_case

CASE_DIR = Path(__file__).resolve().parent
PRESETS = {
    # DETR R50 (FlagPerf's detr, facebookresearch/detr's detr_resnet50): ResNet-50, 6 encoder
    # and 6 decoder layers of 256, 8 heads, FFN 2048, 100 queries, auxiliary decoder losses
    "resnet50": {"resnet": {}, "detr": {}},
    # CI: a one-block-per-stage ResNet of 16-128 channels, 2 + 2 layers of 64, 4 heads,
    # FFN 128, 20 queries
    "tiny": {"resnet": {"embedding_size": 16, "hidden_sizes": [32, 64],
                        "depths": [1, 1], "layer_type": "basic", "out_features": ["stage2"]},
             "detr": {"d_model": 64, "encoder_layers": 1, "decoder_layers": 1,
                      "encoder_ffn_dim": 128, "decoder_ffn_dim": 128,
                      "encoder_attention_heads": 4, "decoder_attention_heads": 4,
                      "num_queries": 1, "dropout": 0.0}},
}
FULL_SIZE = {"model_size": "resnet50", "classes": 91, "min_size": 800}

if __name__ == "__main__":
    run_case(lambda: main("detr", CASE_DIR, "detr", PRESETS), quick_exit=True)
