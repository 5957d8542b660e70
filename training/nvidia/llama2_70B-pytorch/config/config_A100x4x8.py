# llama2_70B / PyTorch on 4 nodes x 8 NVIDIA A100s (80 GB): the same layout as H100x4x8 (TP 8
# x PP 4).
from config_common import *  # noqa: F403 - the settings every topology shares
