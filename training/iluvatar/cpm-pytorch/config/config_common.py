# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/cpm-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
# DDP type: 'apex' or 'native'.
ddp_type: str = "apex"
