# transformer / PyTorch on 8 NVIDIA H100 GPUs (1x8): 160 pairs per GPU, _base.py's batch of 1280.
from config_common import *  # noqa: F403
