# qwen1.5_MoE / PyTorch on 2 nodes x 2 CPU processes: tensor parallel (attention
# and experts) inside each node, FSDP2 across the nodes (data parallel 2).
from config_common import *  # noqa: F403 - the settings every topology shares

tensor_parallel = 2
