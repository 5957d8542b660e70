# distilbert / PyTorch on 16 NVIDIA H200 GPU(s) (2 x 8): 64 sequences per GPU.
from config_common import *  # noqa: F403

global_batch_size = 1024
