# bigtransfer / PyTorch on 1 NVIDIA H100 GPU(s) (1x1): 16 images per GPU.
from config_common import *  # noqa: F403

global_batch_size = 16
