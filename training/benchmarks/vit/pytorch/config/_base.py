"""vit (PyTorch) defaults: ViT-B/16 on ImageNet-1k at 224x224 with AdamW (the DeiT recipe's
optimiser and schedule, without its distillation and heavy augmentation).

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/imagecls/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.imagecls.base import *  # noqa: F403 - image_size, global_batch_size, ... (see there)

model_size = "base"           # "base" (ViT-B/16) or "tiny" (the CI model): run_pretraining.PRESETS
optimizer = "adamw"
global_batch_size = 1024
base_lr = 5e-4                # AdamW lr at a global batch of 512 (DeiT)
lr_reference_batch = 512
weight_decay = 0.05
warmup_epochs = 5
clip_grad_norm = 1.0
max_epochs = 300
target_accuracy = 0.79        # top-1 on val; DeiT-B reaches 0.818 from scratch in 300 epochs
