# resnet50-pytorch, 1 node(s) x 1 S4000: global batch 136 = 136 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 136
