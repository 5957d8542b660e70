# waveglow / PyTorch on 8 NVIDIA A100 GPUs (1 x 8): 10 segments per GPU (the default global batch).
from config_common import *  # noqa: F403
