# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/tacotron2-pytorch/config/config_BI-V100x2x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 96
eval_batch_size = train_batch_size

warmup = 0.2
learning_rate = 1e-3

seed = 23333
