# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/efficientnet-pytorch/config/config_BI-V100x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *
lr = 0.05
train_batch_size = 96
eval_batch_size = 96
