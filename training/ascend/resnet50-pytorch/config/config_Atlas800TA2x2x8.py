# resnet50-pytorch, 2 node(s) x 8 Atlas800TA2: global batch 3200 = 200 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 3200
