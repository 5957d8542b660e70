"""The parameters both detection cases share; a case's ``config/_base.py`` star-imports this
file and sets its model's own defaults after it (torchvision's detection recipe, FlagPerf's
retinanet and faster_rcnn).

Every public name is a parameter (see docs/adding-a-case.md).
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- data (COCO 2017 layout: detection/coco.py)
min_size = 800                # the detector resizes each image's short side to this ...
max_size = 1333               # ... unless its long side would pass this
train_augment = "flip"        # "flip" (horizontal, p = 1/2) or None
num_classes = None            # None: largest category id + 1 (91 on COCO, torchvision's heads)
num_workers = 4               # DataLoader worker processes per rank

# ---- optimisation: SGD (or AdamW), linear warmup, step decay
optimizer = "sgd"             # "sgd" (momentum) or "adamw" (DETR's)
global_batch_size = 16        # all ranks together; must divide by the world size
global_eval_batch_size = 16
base_lr = 0.02                # learning rate for a global batch of lr_reference_batch
lr_reference_batch = 16       # lr = base_lr * global_batch_size / lr_reference_batch
backbone_lr_factor = 1.0      # the backbone's lr = lr x this (DETR: 0.1)
momentum = 0.9                # sgd only
weight_decay = 1e-4
warmup_steps = 1000           # linear warmup (at most the first epoch's steps) ...
warmup_factor = 0.001         # ... from this fraction of the lr
lr_steps = [16, 22]           # epochs after which the lr is multiplied by lr_gamma
lr_gamma = 0.1
clip_grad_norm = None         # clip the gradients' global norm (None: no clipping)

# ---- run length and quality target
max_epochs = 26
target_map = 0.35             # COCO box mAP@[.50:.95] on val (pycocotools)
eval_every_epochs = 1
max_steps = None              # stop after this many optimizer steps (None: no limit)

# ---- numerics and devices
dtype = "fp32"                # "fp32", or "bf16"/"fp16" autocast on the vendor's device
cpu_threads = None            # torch threads per rank on CPU (None: OMP_NUM_THREADS, else
                              # the usable cores divided by the ranks on the node)
seed = 0
cudnn_benchmark = False       # image sizes vary: benchmark mode would re-tune every batch

# ---- logging
log_every_steps = 100         # STEP_END every N optimizer steps
