# efficientnet / PyTorch on 8 NVIDIA H200 GPUs (1 x 8): 128 images per GPU.
from config_common import *  # noqa: F403
