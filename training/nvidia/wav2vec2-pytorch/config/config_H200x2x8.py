# wav2vec2 / PyTorch on 16 NVIDIA H200 GPUs (2 x 8): 32 crops per GPU.
from config_common import *  # noqa: F403

global_batch_size = 512
