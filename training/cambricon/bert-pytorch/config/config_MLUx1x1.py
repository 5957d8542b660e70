# bert-pytorch, 1 node(s) x 1 MLU: global batch 32 = 32 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 32
