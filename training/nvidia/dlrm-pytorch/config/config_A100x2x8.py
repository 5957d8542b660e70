# dlrm / PyTorch on NVIDIA A100 GPUs (2 x 8): global batch 65,536 (config_common.py).
from config_common import *  # noqa: F403
