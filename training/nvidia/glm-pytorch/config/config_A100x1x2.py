# glm / PyTorch on 2 NVIDIA A100 GPU(s) (1x2):
# FlagPerf's A100x1x2: 8 samples per GPU; evaluation every 19,200 samples.
from config_common import *  # noqa: F403

global_batch_size = 16
eval_every_steps = 1200
