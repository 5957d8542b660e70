# bert_hf / PyTorch on 8 NVIDIA H200 GPU(s) (1x8): FlagPerf's A100x1x8: 12 per GPU, lr 5e-5 (both _base.py's).
from config_common import *  # noqa: F403
