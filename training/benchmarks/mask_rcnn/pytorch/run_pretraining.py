"""mask_rcnn / PyTorch: torchvision's Mask R-CNN with a ResNet-50 FPN backbone, trained from
scratch (no weights) to COCO box and mask mAP targets on COCO 2017 instance segmentation,
DDP under torchrun.

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
    # torchvision's maskrcnn_resnet50_fpn (FlagPerf's mask_rcnn): ResNet-50, FPN 256, P2-P6,
    # a 1024-wide box head and four 256-wide mask convolutions
    "resnet50_fpn": {"backbone": "resnet50", "fpn_channels": 256},
    # CI: ResNet-18, FPN 64, a 256-wide box head, two 64-wide mask convolutions, fewer
    # proposals and sampled regions (32 an image: the CI images hold one object each)
    "tiny": {"backbone": "resnet18", "fpn_channels": 64, "representation_size": 256,
             "mask_layers": [64, 64],
             "detector": {"rpn_pre_nms_top_n_train": 200, "rpn_post_nms_top_n_train": 100,
                          "rpn_pre_nms_top_n_test": 100, "rpn_post_nms_top_n_test": 50,
                          "rpn_batch_size_per_image": 32, "box_batch_size_per_image": 32,
                          "box_detections_per_img": 20}},
}
FULL_SIZE = {"model_size": "resnet50_fpn", "classes": 91, "min_size": 800}

if __name__ == "__main__":
    run_case(lambda: main("mask_rcnn", CASE_DIR, "mask_rcnn", PRESETS), quick_exit=True)
