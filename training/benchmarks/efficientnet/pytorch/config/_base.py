"""efficientnet (PyTorch) defaults: EfficientNet-V2-S on ImageNet-1k, FlagPerf's recipe for it
(torchvision's reference recipe for efficientnet_v2_s) as far as the shared case has it.

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/imagecls/base.py. A vendor config may change the names in
mutable_params.py. Not here (the shared loop has none of them): TrivialAugment, mixup,
cutmix, random erasing, the repeated-augmentation sampler, no weight decay on norm layers,
and FlagPerf's separate evaluation size (384): this case evaluates at image_size.
"""

from chipperf_runtime.training.imagecls.base import *  # noqa: F403 - image_size, global_batch_size, ... (see there)

# model_size: "base" (EfficientNet-V2-S) or "tiny" (the CI model); run_pretraining.PRESETS
model_size = "base"
image_size = 300              # FlagPerf's train_crop_size for efficientnet_v2_s
optimizer = "sgd"
global_batch_size = 1024
base_lr = 0.5                 # FlagPerf's lr, at 8 x 128 images
lr_reference_batch = 1024
weight_decay = 2e-5
label_smoothing = 0.1
warmup_epochs = 5
max_epochs = 600
target_accuracy = 0.82672     # FlagPerf's target_acc1 (82.672 %)
