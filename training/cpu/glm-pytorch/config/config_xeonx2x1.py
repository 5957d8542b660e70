# glm / PyTorch on CPU, 2 nodes x 1 process: the CI configuration (config_common.py).
from config_common import *  # noqa: F403
