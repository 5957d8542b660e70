# glm / PyTorch on 8 NVIDIA H100 GPU(s) (1x8):
# FlagPerf's A100x1x8: 8 samples per GPU; evaluation every 19,200 samples (_base.py's).
from config_common import *  # noqa: F403
