# transformer / PyTorch on 16 NVIDIA H200 GPUs (2x8): 160 pairs per GPU.
from config_common import *  # noqa: F403

global_batch_size = 2560
