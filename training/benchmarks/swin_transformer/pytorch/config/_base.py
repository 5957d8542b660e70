"""swin_transformer (PyTorch) defaults: Swin-T on ImageNet-1k at 224x224 with AdamW (the Swin
recipe's optimiser, schedule and clipping, without its mixup/cutmix).

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/imagecls/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.imagecls.base import *  # noqa: F403 - image_size, global_batch_size, ... (see there)

# model_size: "base" (Swin-T) or "tiny" (two 2-block stages, the CI model) (run_pretraining.PRESETS)
model_size = "base"
optimizer = "adamw"
global_batch_size = 1024
base_lr = 1e-3                # Swin: 1e-3 at batch 1024
lr_reference_batch = 1024
weight_decay = 0.05
warmup_epochs = 20
clip_grad_norm = 5.0
max_epochs = 300
target_accuracy = 0.81        # top-1 on val (FlagPerf's target_acc1 81.00)
