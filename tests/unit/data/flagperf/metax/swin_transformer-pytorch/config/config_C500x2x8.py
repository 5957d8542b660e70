# From FlagOpen/FlagPerf training/metax/swin_transformer-pytorch/config/config_C500x2x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *

cfg = "configs/swin/swin_tiny_patch4_window7_224.yaml"
train_batch_size = 384
train_epochs = 40
