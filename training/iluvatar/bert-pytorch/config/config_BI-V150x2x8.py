# bert-pytorch, 2 node(s) x 8 BI-V150: global batch 512 = 32 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 512
