# resnet50-pytorch, 2 node(s) x 8 R300: global batch 1536 = 96 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 1536
