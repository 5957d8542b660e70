# resnet50 / PyTorch, 2 node(s) x 8 NVIDIA H100: global batch 4096 = 256 per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 4096
num_workers = 12       # DataLoader workers per rank on an H100 host
