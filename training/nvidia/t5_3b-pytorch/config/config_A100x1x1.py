# t5_3b / PyTorch on 1 NVIDIA A100 80GB GPU (1 x 1): 16 pairs per GPU as the seed's A100 setting, so
# 3 epochs are 3 x 17,944 steps (287,113 train pairs in full batches of 16), one evaluation each.
from config_common import *  # noqa: F403

global_batch_size = 16
max_steps = 53832
eval_every_steps = 17944
