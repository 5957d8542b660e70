"""bigtransfer (PyTorch) defaults: BiT-M-R152x2 on ImageNet-1k at FlagPerf's size (480 x 480)
and its recipe as far as the shared case has it: SGD (momentum 0.9, no weight decay) at lr
0.003 for a global batch of 128 (FlagPerf's 8 GPUs x 16), 500 warm-up steps, 40,000 steps
(4 epochs at that batch), FlagPerf's target top-1 0.83.

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/imagecls/base.py. A vendor config may change the names in
mutable_params.py. Not here: FlagPerf's step decay (x 0.1 after steps 3,000, 6,000, 9,000
and 10,000; the shared loop decays by a cosine to 0), its Resize(512) + RandomCrop(480)
(the shared loop takes a random resized crop) and its squashed 480 x 480 evaluation, and
its start from BiT-M's ImageNet-21k weights: nothing is downloaded, the network trains from
scratch, so 4 epochs do not reach the target; a full-size run measures throughput at
FlagPerf's shapes (see README.md).
"""

from chipperf_runtime.training.imagecls.base import *  # noqa: F403 - image_size, global_batch_size, ... (see there)

model_size = "r152x2"         # or "tiny" (the CI model): run_pretraining.PRESETS
image_size = 480              # FlagPerf's crop
val_crop_ratio = 0.9375       # FlagPerf resizes to 512 before its 480 crop
optimizer = "sgd"
global_batch_size = 128       # FlagPerf's A100 1x8: 16 per GPU
base_lr = 0.003               # FlagPerf's lr
lr_reference_batch = 128
momentum = 0.9
weight_decay = 0.0            # FlagPerf's SGD has none
label_smoothing = 0.0
warmup_epochs = 0.05          # about FlagPerf's 500 steps at 128 images (1,281,167 per epoch)
max_epochs = 4
max_steps = 40000             # FlagPerf's max_steps
target_accuracy = 0.83        # FlagPerf's target (named target_mAP there: top-1)
