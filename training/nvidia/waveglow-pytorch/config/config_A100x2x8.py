# waveglow / PyTorch on 16 NVIDIA A100 GPUs (2 x 8): 10 segments per GPU.
from config_common import *  # noqa: F403

global_batch_size = 160
