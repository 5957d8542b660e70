# qwen1.5_MoE / PyTorch on 1 node x 2 CPU processes: tensor parallel (attention
# and experts) over both.
from config_common import *  # noqa: F403 - the settings every topology shares

tensor_parallel = 2
