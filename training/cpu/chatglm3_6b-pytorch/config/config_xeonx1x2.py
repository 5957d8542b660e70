# chatglm3_6b / PyTorch on 1 node x 2 CPU processes: FSDP2 data parallel over both (the
# case runs tensor_parallel 1 only).
from config_common import *  # noqa: F403 - the settings every topology shares

micro_batch_size = 8          # 8 samples per data-parallel rank
