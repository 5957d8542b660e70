# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/swin_transformer-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = "kunlunxin"
dist_backend = "xccl"
amp_enable = False
