# aquila2_7b / PyTorch on 2 nodes x 2 CPU processes: tensor parallel inside each node,
# FSDP2 across the nodes (data parallel 2).
from config_common import *  # noqa: F403 - the settings every topology shares

tensor_parallel = 2
