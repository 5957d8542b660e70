# gpt2 / PyTorch on 1 NVIDIA A100 GPU(s) (1 x 1): 8 sequences per GPU.
from config_common import *  # noqa: F403

global_batch_size = 8
