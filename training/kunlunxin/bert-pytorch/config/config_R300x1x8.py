# bert-pytorch, 1 node(s) x 8 R300: global batch 64 = 8 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 64
