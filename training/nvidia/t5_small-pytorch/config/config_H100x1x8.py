# t5_small / PyTorch on 8 NVIDIA H100 GPU(s) (1 x 8): 32 pairs per GPU.
from config_common import *  # noqa: F403
