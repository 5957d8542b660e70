# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/transformer-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = "iluvatar"
dist_backend = "nccl"
