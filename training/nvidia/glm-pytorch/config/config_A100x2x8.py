# glm / PyTorch on 16 NVIDIA A100 GPU(s) (2x8):
# FlagPerf's A100x2x8: 8 samples per GPU; evaluation every 19,200 samples.
from config_common import *  # noqa: F403

global_batch_size = 128
eval_every_steps = 150
