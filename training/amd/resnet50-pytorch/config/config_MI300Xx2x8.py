# resnet50-pytorch, 2 node(s) x 8 MI300X: global batch 9088 = 568 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 9088
