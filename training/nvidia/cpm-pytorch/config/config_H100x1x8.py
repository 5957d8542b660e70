# cpm / PyTorch on 8 NVIDIA H100 GPU(s) (1x8):
# FlagPerf's A100x1x8: 32 sequences per GPU, 4,000 steps, 20 % warmup (_base.py's).
from config_common import *  # noqa: F403
