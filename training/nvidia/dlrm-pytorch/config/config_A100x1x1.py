# dlrm / PyTorch on NVIDIA A100 GPUs (1 x 1): global batch 65,536 (config_common.py).
from config_common import *  # noqa: F403
