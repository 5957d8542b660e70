# t5_3b / PyTorch on CPU, 1x1: the CI configuration (config_common.py).
from config_common import *  # noqa: F403
