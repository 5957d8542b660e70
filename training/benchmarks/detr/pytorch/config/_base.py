"""detr (PyTorch) defaults: DETR R50 on COCO 2017 with DETR's recipe as FlagPerf runs it
(AdamW 1e-4, backbone 1e-5, weight decay 1e-4, gradient norm clipped at 0.1, 300 epochs,
x 0.1 after 200, a global batch of 64: FlagPerf's 8 GPUs x 8) and FlagPerf's target, box
mAP 0.42.

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/detection/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.detection.base import *  # noqa: F403 - min_size, global_batch_size, ... (see there)

model_size = "resnet50"       # or "tiny" (the CI model): run_pretraining.PRESETS
optimizer = "adamw"
global_batch_size = 64        # FlagPerf's A100 1x8: train_batch_size 8 per GPU
global_eval_batch_size = 64
base_lr = 1e-4                # DETR's lr at its global batch of 64
lr_reference_batch = 64
backbone_lr_factor = 0.1      # DETR's lr_backbone 1e-5
weight_decay = 1e-4
warmup_steps = 0              # DETR has no warmup
lr_steps = [200]              # DETR's lr_drop
max_epochs = 300
clip_grad_norm = 0.1          # DETR's clip_max_norm
target_map = 0.42             # FlagPerf's detr target_mAP
