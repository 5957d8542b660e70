# t5_3b / PyTorch on 2 x 8 NVIDIA H100 80GB GPUs: 16 pairs per GPU (global 256), 3 epochs at
# that batch (3 x 1,121 steps), one evaluation each.
from config_common import *  # noqa: F403

global_batch_size = 256
max_steps = 3363
eval_every_steps = 1121
