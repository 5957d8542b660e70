# From FlagOpen/FlagPerf@1b5a0303 training/metax/efficientnet-pytorch/config/config_C500x2x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 128
eval_batch_size = 128
lr = 0.1
epochs = 25
