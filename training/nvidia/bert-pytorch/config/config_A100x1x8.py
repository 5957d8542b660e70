# bert / PyTorch, 1 node(s) x 8 NVIDIA A100: global batch 256 = 32 per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares
