# From FlagOpen/FlagPerf@1b5a0303 training/metax/mobilenetv2-pytorch/config/config_C500x2x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 640
eval_batch_size = 640
lr = 0.72
max_epoch = 100
