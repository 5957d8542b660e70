# t5_small / PyTorch on 1 NVIDIA H200 GPU (1 x 1): 32 pairs per GPU as FlagPerf's 1x1, so 3
# epochs are 3 x 8,972 steps (287,113 train pairs in full batches of 32), evaluated once each.
from config_common import *  # noqa: F403

global_batch_size = 32
max_steps = 26916
eval_every_steps = 8972
