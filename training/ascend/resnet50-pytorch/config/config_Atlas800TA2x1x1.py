# resnet50-pytorch, 1 node(s) x 1 Atlas800TA2: global batch 200 = 200 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 200
