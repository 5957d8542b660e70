# wav2vec2 / PyTorch on 8 NVIDIA H200 GPUs (1 x 8): 32 crops per GPU.
from config_common import *  # noqa: F403
