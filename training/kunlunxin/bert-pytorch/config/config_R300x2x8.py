# bert-pytorch, 2 node(s) x 8 R300: global batch 128 = 8 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 128
