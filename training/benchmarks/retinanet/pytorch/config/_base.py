"""retinanet (PyTorch) defaults: RetinaNet ResNet-50 FPN on COCO 2017 with torchvision's
recipe (SGD 0.01 at a global batch of 16, 26 epochs, decay after 16 and 22) and FlagPerf's
target, box mAP 0.35.

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/detection/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.detection.base import *  # noqa: F403 - min_size, global_batch_size, ... (see there)

model_size = "resnet50_fpn"   # or "tiny" (the CI model): run_pretraining.PRESETS
base_lr = 0.01                # at a global batch of 16 (torchvision; FlagPerf: 0.08 at 128)
target_map = 0.35             # FlagPerf's retinanet target
