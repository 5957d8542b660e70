# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/mobilenetv2-pytorch/config/config_R300x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 256
eval_batch_size = 128

lr = 0.1
gradient_accumulation_steps = 1
warmup = 0.1
lr_decay_ratio = 0.1
lr_decay_iters = 4338
log_freq = 10
