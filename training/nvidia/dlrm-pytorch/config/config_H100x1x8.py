# dlrm / PyTorch on NVIDIA H100 GPUs (1 x 8): global batch 65,536 (config_common.py).
from config_common import *  # noqa: F403
