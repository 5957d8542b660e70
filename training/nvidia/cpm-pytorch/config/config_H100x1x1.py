# cpm / PyTorch on 1 NVIDIA H100 GPU(s) (1x1):
# FlagPerf's A100x1x1: 32 sequences per GPU, 3,000 steps, 20 % warmup.
from config_common import *  # noqa: F403

global_batch_size = 32
max_steps = 3000
warmup_steps = 600
eval_every_steps = 625           # FlagPerf eval_interval_samples 20,000 / 32
