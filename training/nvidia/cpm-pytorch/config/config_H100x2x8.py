# cpm / PyTorch on 16 NVIDIA H100 GPU(s) (2x8):
# FlagPerf's A100x2x8: 192 sequences per GPU, 2,000 steps, 20 % warmup.
from config_common import *  # noqa: F403

global_batch_size = 3072
max_steps = 2000
warmup_steps = 400
eval_every_steps = 7             # FlagPerf eval_interval_samples 20,000 / 3,072, rounded up
