"""moflow (PyTorch) defaults: MoFlow on ZINC250k (DLE's preprocessing), DLE's recipe.

The metric is FlagPerf's NUV (%): molecules sampled from the model, the share that are valid,
unique and not in the training set, scored with RDKit as DLE does (moflow_nuv.py); FlagPerf's
target is 80. Every public name here is a parameter; the loop's are shared with the other
loss-loop cases (chipperf_runtime/training/lossloop/base.py).
"""

from chipperf_runtime.training.lossloop.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)

model_size = "full"           # "full" (DLE's zinc250k model) or "tiny" (the CI model)
target = {"full": 80.0, "tiny": 20.0}  # NUV, %: FlagPerf's target_nuv at full size

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

# ---- evaluation: FlagPerf's (DLE's) sampling
temperature = 0.3             # latents drawn from N(0, (temperature x exp(ln_var / 2))^2)
eval_molecules = 512          # molecules sampled per evaluation, all ranks together (FlagPerf
                              # scores one batch of train_batch_size = 512)
