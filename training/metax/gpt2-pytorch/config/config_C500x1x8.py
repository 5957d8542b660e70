# From FlagOpen/FlagPerf@1b5a0303 training/metax/gpt2-pytorch/config/config_C500x1x8.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *
