# resnet50-pytorch, 1 node(s) x 8 K100: global batch 1600 = 200 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 1600
