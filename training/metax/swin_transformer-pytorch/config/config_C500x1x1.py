# From FlagOpen/FlagPerf@1b5a0303 training/metax/swin_transformer-pytorch/config/config_C500x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

cfg = "configs/swin/swin_tiny_patch4_window7_224.yaml"
train_batch_size = 384
train_epochs = 3
