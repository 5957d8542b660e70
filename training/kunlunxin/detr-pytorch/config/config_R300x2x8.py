# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/detr-pytorch/config/config_R300x2x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 4
eval_batch_size = 4
