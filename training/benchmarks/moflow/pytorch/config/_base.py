"""moflow (PyTorch) defaults: MoFlow on ZINC250k (DLE's preprocessing), DLE's recipe.

FlagPerf's target is NUV >= 80 % (novel, unique and valid molecules among sampled ones),
which needs RDKit; chipperf's images have none, so the case's metric is the validation
negative log-likelihood in bits per dimension, and the full-size model has no target yet:
it runs in performance mode (README). Every public name here is a parameter; the loop's are
shared with the other loss-loop cases (chipperf_runtime/training/lossloop/base.py).
"""

from chipperf_runtime.training.lossloop.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)

model_size = "full"           # "full" (DLE's zinc250k model) or "tiny" (the CI model)
target = {"tiny": 6.5}        # validation NLL, bits per dimension; none established at full size

# ---- data (moflow_data.py): FlagPerf's config_name picks the files
config_name = "zinc250k"

# ---- optimisation: DLE's Adam (0.9, 0.99), lr 5e-4, clip 1.0, 512 molecules per GPU, 300 epochs
global_batch_size = 512
learning_rate = 5e-4
adam_beta2 = 0.99
min_lr_ratio = 1.0
max_steps = 130000            # 300 epochs of ZINC250k's ~225k training molecules at batch 512
grad_clip_norm = 1.0
eval_every_steps = 2000
