# llama3_70B_continuetrain / PyTorch on 2 nodes x 8 NVIDIA A100s (80 GB), the smallest topology
# whose chips hold the training state (16 bytes per parameter over 16 GPUs: 65.7 GiB per GPU, a
# floor): tensor parallel 8 inside each node, 2 pipeline stages of 40 layers across the nodes.
from config_common import *  # noqa: F403 - the settings every topology shares

pipeline_parallel = 2
