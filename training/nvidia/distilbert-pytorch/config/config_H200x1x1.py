# distilbert / PyTorch on 1 NVIDIA H200 GPU(s) (1 x 1): 64 sequences per GPU.
from config_common import *  # noqa: F403

global_batch_size = 64
