# bert-pytorch, 2 node(s) x 8 MI300X: global batch 1024 = 64 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 1024
