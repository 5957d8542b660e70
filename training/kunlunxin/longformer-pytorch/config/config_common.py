# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/longformer-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = 'kunlunxin'

fp16 = False

dist_backend = "xccl"
