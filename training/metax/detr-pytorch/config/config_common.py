# From FlagOpen/FlagPerf@1b5a0303 training/metax/detr-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = "metax"
dist_backend = "nccl"
