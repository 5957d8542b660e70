# longformer / PyTorch on 8 NVIDIA H200 GPU(s) (1x8): 16 sequences per GPU, _base.py's batch of 128.
from config_common import *  # noqa: F403
