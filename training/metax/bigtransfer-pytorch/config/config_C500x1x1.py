# From FlagOpen/FlagPerf@1b5a0303 training/metax/bigtransfer-pytorch/config/config_C500x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *
target_mAP: float = 0.32
max_steps: int = 1000
