# resnet50 / PyTorch, 1 node(s) x 8 NVIDIA H100: global batch 2048 = 256 per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 2048
num_workers = 12       # DataLoader workers per rank on an H100 host
