# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/bigtransfer-pytorch/config/config_BI-V100x2x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

# not carried (no such parameter in chipperf's case): batch_size = 14
eval_batch_size = 14
