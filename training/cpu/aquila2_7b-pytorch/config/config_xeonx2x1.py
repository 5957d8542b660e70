# aquila2_7b / PyTorch on 2 nodes x 1 CPU process: FSDP2 across the nodes.
from config_common import *  # noqa: F403 - the settings every topology shares

