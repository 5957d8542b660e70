# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/t5_small-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = 'kunlunxin'
dist_backend = 'xccl'
