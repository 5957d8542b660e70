# From FlagOpen/FlagPerf@1b5a0303 training/metax/gpt2-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = 'metax'

# disable fp16
fp16 = False

dist_backend = "nccl"
