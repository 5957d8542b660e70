# transformer / PyTorch on 1 NVIDIA H200 GPU (1x1): 160 pairs.
from config_common import *  # noqa: F403

global_batch_size = 160
