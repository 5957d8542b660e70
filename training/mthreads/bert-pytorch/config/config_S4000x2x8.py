# bert-pytorch, 2 node(s) x 8 S4000: global batch 256 = 16 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares
