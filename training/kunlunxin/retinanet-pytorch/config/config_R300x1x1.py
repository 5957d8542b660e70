# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/retinanet-pytorch/config/config_R300x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 8
eval_batch_size = 8

lr = 0.04
