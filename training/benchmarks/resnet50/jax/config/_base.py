"""resnet50 (JAX) defaults: ImageNet-1k at 224x224, fp32, the MLPerf quality target.

Every public name here is a parameter. A vendor config may change only the names listed
in mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a shape from arch.PRESETS. "resnet50" is ResNet-50 v1.5 (torchvision's layout:
# 25,557,032 parameters with 1000 classes); "tiny" (one block per stage, width 16) is the CI
# size that trains on the digits folder in seconds on a CPU core.
model_size = "resnet50"
bn_momentum = 0.9             # Flax's BatchNorm momentum: running = m * running + (1 - m) * batch

# ---- data
image_size = 224              # training and evaluation resolution (square)
train_augment = "random_resized_crop_flip"   # or "resize" (deterministic resize only)
val_crop_ratio = 0.875        # eval: resize short side to image_size / ratio, center-crop
num_classes = None            # None: the number of class folders in <data_dir>/train
decode_threads = 4            # Pillow decoding threads per process

# ---- optimisation (optax: SGD with momentum, L2 weight decay on kernels)
global_batch_size = 256       # all processes together; must divide by the world size and the devices
base_lr = 0.1                 # SGD learning rate for a global batch of lr_reference_batch
lr_reference_batch = 256      # lr = base_lr * global_batch_size / lr_reference_batch
momentum = 0.9
weight_decay = 1e-4           # added to the gradient of convolution and dense kernels only
label_smoothing = 0.1
warmup_epochs = 5             # linear warmup, then cosine decay to 0 at max_epochs
nesterov = False

# ---- run length and quality target. The target is top-1 on val, per model size, and not
# vendor-settable: resnet50: MLPerf Training's 0.759 on ImageNet; tiny: 0.90 on the digits
# folder of training/benchmarks/resnet50/pytorch/prepare_digits.py (the pytorch CI target).
max_epochs = 90
target_accuracy = {"resnet50": 0.759, "tiny": 0.90}
eval_every_epochs = 1
max_steps = None              # stop after this many optimizer steps (None: no limit)

# ---- numerics
dtype = "fp32"                # "fp32", or "bf16" (bfloat16 compute, float32 parameters)
seed = 1234

# ---- logging
log_every_steps = 10          # STEP_END every N optimizer steps
