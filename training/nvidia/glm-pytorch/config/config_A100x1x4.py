# glm / PyTorch on 4 NVIDIA A100 GPU(s) (1x4):
# FlagPerf's A100x1x4: 8 samples per GPU; evaluation every 19,200 samples.
from config_common import *  # noqa: F403

global_batch_size = 32
eval_every_steps = 600
