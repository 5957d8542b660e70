# resnet50-pytorch, 1 node(s) x 8 MLU: global batch 2048 = 256 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 2048
