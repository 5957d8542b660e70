# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/transformer-pytorch/config/config_BI-V100x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

max_tokens = 5120
max_epoch = 30
# The following configuration parameter is for performace test only
# max_epoch = 1
lr = [0.000846]
