# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/bigtransfer-pytorch/config/config_BI-V100x1x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

# not carried (no such parameter in chipperf's case): batch_size = 14
