# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/mobilenetv2-pytorch/config/config_R300x2x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 256
eval_batch_size = 256

lr: float = 0.045 * 16

gradient_accumulation_steps = 1
