# resnet50-pytorch, 1 node(s) x 1 MI300X: global batch 568 = 568 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 568
