# longformer / PyTorch on 8 NVIDIA H200 GPU(s) (1x8): 16 sequences per GPU (FlagPerf's A100x1x8; _base.py's 128).
from config_common import *  # noqa: F403
