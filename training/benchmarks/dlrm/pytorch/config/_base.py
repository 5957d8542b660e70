"""dlrm (PyTorch) defaults: DLRM on Criteo Terabyte preprocessed by DLE (frequency limit 15),
one epoch, to FlagPerf's target AUC 0.802.

Every public name here is a parameter; the loop's are shared with the other loss-loop cases
(chipperf_runtime/training/lossloop/base.py). A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.lossloop.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)

model_size = "full"           # "full" (DLE's DLRM) or "tiny" (the CI model): dlrm_model.PRESETS
target = {"full": 0.802, "tiny": 0.70}   # validation AUC, per model size

# ---- data (dlrm_data.py): FlagPerf's split names under <data_dir>
train_split = "train"
eval_split = "validation"

# ---- optimisation: DLE's SGD at lr 24, batch 65,536, 8,000 linear warmup steps; its
# polynomial decay (power 2 from step 48,000 over 24,000 steps) is not reproduced: the rate
# stays at its peak after the warmup (README)
global_batch_size = 65536
learning_rate = 24.0
warmup_steps = 8000
min_lr_ratio = 1.0
max_steps = 64000             # one epoch of FL=15 Criteo Terabyte's 4.19 billion samples
grad_clip_norm = 0.0
eval_every_steps = 6400       # 10 evaluations in the epoch
