# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/gpt2-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = 'kunlunxin'

# disable fp16
fp16 = False

dist_backend = "xccl"
