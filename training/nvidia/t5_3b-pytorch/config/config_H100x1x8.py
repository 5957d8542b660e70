# t5_3b / PyTorch on 8 NVIDIA H100 80GB GPUs (1 x 8): 16 pairs per GPU (global 128:
# config/_base.py's, inherited).
from config_common import *  # noqa: F403
