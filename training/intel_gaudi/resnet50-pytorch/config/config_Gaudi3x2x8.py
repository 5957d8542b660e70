# resnet50-pytorch, 2 node(s) x 8 Gaudi3: global batch 6016 = 376 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 6016
