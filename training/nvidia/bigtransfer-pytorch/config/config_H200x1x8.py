# bigtransfer / PyTorch on 8 NVIDIA H200 GPU(s) (1x8): 16 images per GPU.
from config_common import *  # noqa: F403
