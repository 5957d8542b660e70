# From FlagOpen/FlagPerf@1e05cb65 (pull request 375) training/dcu/detr-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = "dcu"
dist_backend = "nccl"
