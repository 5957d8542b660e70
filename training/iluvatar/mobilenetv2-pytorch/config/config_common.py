# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/mobilenetv2-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = "iluvatar"
dist_backend = "nccl"
fp16 = False
