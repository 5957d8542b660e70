# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/cpm-pytorch/config/config_R300x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 64
eval_batch_size = train_batch_size
max_steps = 700
max_samples_termination = 4391260

warmup = 0.2
learning_rate = 0.0005

seed = 23333
