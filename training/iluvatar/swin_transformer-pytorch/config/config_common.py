# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/swin_transformer-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "iluvatar"
dist_backend: str = "nccl"
ddp_type: str = "native"
