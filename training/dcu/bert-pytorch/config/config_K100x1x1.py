# bert-pytorch, 1 node(s) x 1 K100: global batch 24 = 24 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 24
