"""resnet50 (PyTorch) defaults: ImageNet-1k at 224x224, fp32, the MLPerf quality target.

Every public name here is a parameter. A vendor config may change only the names listed
in mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.driver.compile_base import *  # noqa: F403 - compile, compile_mode, compile_backend
from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- data
image_size = 224              # training and evaluation resolution (square)
train_augment = "random_resized_crop_flip"   # or "resize" (deterministic resize only)
val_crop_ratio = 0.875        # eval: resize short side to image_size / ratio, center-crop
num_classes = None            # None: the number of class folders in <data_dir>/train
num_workers = 4               # DataLoader worker processes per rank
data_mode = "real"            # or "predecoded": the images decoded once ahead of the run
                              # (imagecls/predecoded.py: its command makes them), cropped on the
                              # device; or "synthetic": one device-resident random batch, compute
                              # only (performance mode; labelled "synthetic: compute only")

# ---- optimisation
optimizer = "sgd"             # "sgd" or "adamw" (imagecls.case)
global_batch_size = 256       # all ranks together; must divide by the world size
base_lr = 0.1                 # SGD learning rate for a global batch of lr_reference_batch
lr_reference_batch = 256      # lr = base_lr * global_batch_size / lr_reference_batch
momentum = 0.9
weight_decay = 1e-4
label_smoothing = 0.1
warmup_epochs = 5             # linear warmup, then cosine decay to 0 at max_epochs
nesterov = False
bn_momentum = 0.1             # BatchNorm running-stats momentum (PyTorch's default)
clip_grad_norm = None         # clip the gradients' global norm (None: no clipping)

# ---- run length and quality target
max_epochs = 90
target_accuracy = 0.759       # top-1 on val (MLPerf Training ResNet-50 v1.5)
eval_every_epochs = 1
max_steps = None              # stop after this many optimizer steps (None: no limit)

# ---- numerics and devices
dtype = "fp32"                # "fp32", or "bf16"/"fp16" autocast on the vendor's device
channels_last = False
cpu_threads = None            # torch threads per rank on CPU (None: OMP_NUM_THREADS, else
                              # the usable cores divided by the ranks on the node)
seed = 1234
cudnn_benchmark = True

# ---- logging
log_every_steps = 10          # STEP_END every N optimizer steps
