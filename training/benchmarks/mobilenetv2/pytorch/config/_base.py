"""mobilenetv2 (PyTorch) defaults: MobileNetV2 1.0 on ImageNet-1k at 224x224 with SGD (torchvision's reference
recipe's lr, weight decay and length; cosine instead of its step decay).

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/imagecls/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.imagecls.base import *  # noqa: F403 - image_size, global_batch_size, ... (see there)

# model_size: "base" (MobileNetV2 1.0) or "tiny" (width x 0.35, the CI model) (run_pretraining.PRESETS)
model_size = "base"
optimizer = "sgd"
global_batch_size = 256
base_lr = 0.036               # torchvision's mobilenet_v2 recipe, batch 256
lr_reference_batch = 256
weight_decay = 4e-5
label_smoothing = 0.0
warmup_epochs = 0
max_epochs = 300
target_accuracy = 0.70        # top-1 on val; torchvision's recipe reaches 0.719
