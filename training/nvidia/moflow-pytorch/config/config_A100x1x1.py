# moflow / PyTorch on 1 NVIDIA A100 GPU (1 x 1): 512 molecules per GPU.
from config_common import *  # noqa: F403

global_batch_size = 512
