# waveglow / PyTorch on 1 NVIDIA A100 GPU (1 x 1): 10 segments per GPU.
from config_common import *  # noqa: F403

global_batch_size = 10
