# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/swin_transformer-pytorch/config/config_BI-V100x1x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

cfg = "configs/swin/swin_tiny_patch4_window7_224.yaml"
train_batch_size = 352
