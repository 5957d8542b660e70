# chatglm3_6b / PyTorch on 2 nodes x 1 CPU process: FSDP2 across the nodes.
from config_common import *  # noqa: F403 - the settings every topology shares

micro_batch_size = 8          # 8 samples per data-parallel rank
