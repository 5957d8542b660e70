"""efficientnet (PyTorch) defaults: EfficientNet-B0 on ImageNet-1k at 224x224 with SGD + cosine.

Every public name here is a parameter; the shared ones are in
training/benchmarks/imagecls/base.py. A vendor config may change the names in
mutable_params.py.
"""

from imagecls.base import *  # noqa: F403 - image_size, global_batch_size, ... (see there)

# model_size: "base" (EfficientNet-B0) or "tiny" (width and depth x 0.25, the CI model);
# the presets are run_pretraining.PRESETS
model_size = "base"
optimizer = "sgd"
global_batch_size = 1024
base_lr = 0.1
lr_reference_batch = 256
weight_decay = 1e-5
label_smoothing = 0.1
warmup_epochs = 5
max_epochs = 350
target_accuracy = 0.75        # top-1 on val; torchvision's B0 weights score 0.777
