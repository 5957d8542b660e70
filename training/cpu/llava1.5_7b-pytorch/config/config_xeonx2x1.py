# llava1.5_7b / PyTorch on 2 nodes x 1 CPU process: FSDP2 data parallel across the nodes (8
# samples per rank per step).
from config_common import *  # noqa: F403 - the settings every topology shares

micro_batch_size = 8
