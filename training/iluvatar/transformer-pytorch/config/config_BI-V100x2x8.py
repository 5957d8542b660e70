# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/transformer-pytorch/config/config_BI-V100x2x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

max_tokens = 10240
max_epoch = 30
# The following configuration parameter is for performace test only
# max_epoch = 5
lr = [0.000846]
