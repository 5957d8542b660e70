# From FlagOpen/FlagPerf@1b5a0303 training/metax/transformer_xl-pytorch/config/config_C500x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *
# not carried (no such parameter in chipperf's case): max_epoch = 1
# not carried (no such parameter in chipperf's case): train_batch_size = 60
eval_batch_size = 60

seed = 42
