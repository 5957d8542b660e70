# bert-pytorch, 1 node(s) x 8 Gaudi3: global batch 320 = 40 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 320
