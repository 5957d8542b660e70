"""retinanet / PyTorch: torchvision's RetinaNet with a ResNet-50 FPN backbone, trained from
scratch (no weights) to a COCO box mAP target on COCO 2017, DDP under torchrun.

The data, loop, mAP and FINISHED are the shared detection case (detection); this file holds
only the model presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from chipperf_runtime.training.detection.case import main
from chipperf_runtime.training.driver import run_case

CASE_DIR = Path(__file__).resolve().parent
PRESETS = {
    # torchvision's retinanet_resnet50_fpn (FlagPerf's retinanet): ResNet-50, FPN 256, P3-P7
    "resnet50_fpn": {"backbone": "resnet50", "fpn_channels": 256},
    # CI: ResNet-18, FPN 64, anchors half torchvision's (the 16-32 pixel shapes of 64 x 64
    # images match P3's), GroupNorm in the head (torchvision's v2 head: a v1 head trains too
    # slowly from scratch for CI), fewer candidates per image
    "tiny": {"backbone": "resnet18", "fpn_channels": 64, "anchor_sizes": [16, 32, 64, 128, 256],
             "head_groupnorm": 16,
             "detector": {"topk_candidates": 100, "detections_per_img": 20}},
}
FULL_SIZE = {"model_size": "resnet50_fpn", "classes": 91, "min_size": 800}

if __name__ == "__main__":
    run_case(lambda: main("retinanet", CASE_DIR, "retinanet", PRESETS), quick_exit=True)
