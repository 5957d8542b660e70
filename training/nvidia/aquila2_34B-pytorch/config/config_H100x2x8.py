# aquila2_34B / PyTorch on 2 nodes x 8 NVIDIA H100s (80 GB): FlagPerf's aquila2_34B_container
# layout (config_A100x2x8.py says where it comes from) on H100s: TP 4 x PP 4, no data
# parallelism, global batch 32 x 4096 tokens.
from config_common import *  # noqa: F403 - the settings every topology shares
