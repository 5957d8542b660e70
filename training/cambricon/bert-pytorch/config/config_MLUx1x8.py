# bert-pytorch, 1 node(s) x 8 MLU: global batch 256 = 32 per chip.
from config_common import *  # noqa: F403 - the settings every topology shares
