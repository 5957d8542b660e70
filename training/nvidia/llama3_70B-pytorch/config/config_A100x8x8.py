# llama3_70B / PyTorch on 8 nodes x 8 NVIDIA A100s (80 GB): the same layout as H100x8x8 (TP 8
# x PP 4 x DP 2).
from config_common import *  # noqa: F403 - the settings every topology shares
