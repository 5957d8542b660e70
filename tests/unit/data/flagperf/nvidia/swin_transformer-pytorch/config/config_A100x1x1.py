# From FlagOpen/FlagPerf training/nvidia/swin_transformer-pytorch/config/config_A100x1x1.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *

cfg = "configs/swin/swin_tiny_patch4_window7_224.yaml"
train_batch_size = 384

