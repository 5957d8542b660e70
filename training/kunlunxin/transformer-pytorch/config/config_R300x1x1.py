# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/transformer-pytorch/config/config_R300x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

max_tokens = 8192
max_epoch = 30
# not carried (no such parameter in chipperf's case): max_update = 6500
lr = [0.000846]
