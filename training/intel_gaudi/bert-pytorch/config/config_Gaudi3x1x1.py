# bert-pytorch, 1 node(s) x 1 Gaudi3: global batch 40 = 40 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 40
