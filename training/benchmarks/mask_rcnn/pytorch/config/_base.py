"""mask_rcnn (PyTorch) defaults: Mask R-CNN ResNet-50 FPN on COCO 2017 instance segmentation
with torchvision's recipe (SGD 0.02 at a global batch of 16, 26 epochs, decay after 16 and
22; FlagPerf's lr 0.16 at 8 x 16 images is the same rate) and FlagPerf's targets: box mAP
0.38 and mask mAP 0.34, both.

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/detection/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.detection.base import *  # noqa: F403 - min_size, global_batch_size, ... (see there)

model_size = "resnet50_fpn"   # or "tiny" (the CI model): run_pretraining.PRESETS
base_lr = 0.02                # at a global batch of 16 (torchvision; FlagPerf's mask_rcnn)
target_map = 0.38             # FlagPerf's target_map_bbox: COCO box mAP@[.50:.95]
target_mask_map = 0.34        # FlagPerf's target_map_segm: COCO mask mAP@[.50:.95]
