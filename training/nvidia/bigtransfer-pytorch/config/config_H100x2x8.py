# bigtransfer / PyTorch on 16 NVIDIA H100 GPU(s) (2x8): 16 images per GPU.
from config_common import *  # noqa: F403

global_batch_size = 256
