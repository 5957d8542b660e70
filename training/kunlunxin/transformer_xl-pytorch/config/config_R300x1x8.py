# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/transformer_xl-pytorch/config/config_R300x1x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *
