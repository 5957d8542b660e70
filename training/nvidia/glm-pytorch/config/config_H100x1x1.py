# glm / PyTorch on 1 NVIDIA H100 GPU(s) (1x1):
# FlagPerf's A100x1x1: 16 samples per GPU; evaluation every 19,200 samples.
from config_common import *  # noqa: F403

global_batch_size = 16
eval_every_steps = 1200
