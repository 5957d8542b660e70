# bert-pytorch, 1 node(s) x 1 S4000: global batch 16 = 16 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 16
