# From FlagOpen/FlagPerf@1e05cb65 (pull request 375) training/dcu/detr-pytorch/config/config_Z100Lx1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 8
eval_batch_size = 8
