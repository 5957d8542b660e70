# bert-pytorch, 2 node(s) x 8 Gaudi3: global batch 640 = 40 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 640
