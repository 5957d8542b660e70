# From FlagOpen/FlagPerf@1b5a0303 training/metax/mobilenetv2-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = "metax"
dist_backend = "nccl"
fp16 = False
