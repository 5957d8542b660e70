# resnet50-pytorch, 2 node(s) x 8 S4000: global batch 2176 = 136 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 2176
