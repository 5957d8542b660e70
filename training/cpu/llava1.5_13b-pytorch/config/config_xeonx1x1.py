# llava1.5_13b / PyTorch on 1 CPU process: config_common.py's CI settings.
from config_common import *  # noqa: F403 - the settings every topology shares
