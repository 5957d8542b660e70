# t5_3b / PyTorch on 8 Gaudi2 (1 x 8): the seed's Gaudi2 setting, batch 1 per card (global 8),
# with the step count of 3 epochs at that batch (35,889 steps of 8 of 287,113 pairs) and an
# evaluation per epoch.
from config_common import *  # noqa: F403

global_batch_size = 8
max_steps = 107667
eval_every_steps = 35889
