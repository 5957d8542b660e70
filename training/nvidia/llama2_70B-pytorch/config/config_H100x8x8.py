# llama2_70B / PyTorch on 8 nodes x 8 NVIDIA H100s (80 GB): TP 8 x PP 4 x DP 2 (FSDP2 over the
# two pipelines).
from config_common import *  # noqa: F403 - the settings every topology shares
