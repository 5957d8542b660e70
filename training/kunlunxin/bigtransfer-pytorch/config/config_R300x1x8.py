# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/bigtransfer-pytorch/config/config_R300x1x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

gradient_accumulation_steps = 2
# not carried (no such parameter in chipperf's case): batch_size = 8
