# bert-pytorch, 1 node(s) x 1 MI300X: global batch 64 = 64 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 64
