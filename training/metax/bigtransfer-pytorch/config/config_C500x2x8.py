# From FlagOpen/FlagPerf@1b5a0303 training/metax/bigtransfer-pytorch/config/config_C500x2x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *
target_mAP: float = 0.62
max_steps: int = 10000
