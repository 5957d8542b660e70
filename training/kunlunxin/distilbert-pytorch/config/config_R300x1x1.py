# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/distilbert-pytorch/config/config_R300x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 32
gradient_accumulation_steps = 8
