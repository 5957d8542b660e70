# resnet50-pytorch, 1 node(s) x 1 BI-V150: global batch 256 = 256 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares
