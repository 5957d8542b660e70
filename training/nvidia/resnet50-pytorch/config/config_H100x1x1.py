# resnet50 / PyTorch, 1 node(s) x 1 NVIDIA H100: global batch 256 = 256 per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares

num_workers = 12       # DataLoader workers per rank on an H100 host
