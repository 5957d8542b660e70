# transformer / PyTorch on CPU, 2x1: the CI configuration (config_common.py).
from config_common import *  # noqa: F403
