# resnet50-pytorch, 2 node(s) x 8 K100: global batch 4096 = 256 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 4096
