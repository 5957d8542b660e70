# From FlagOpen/FlagPerf@1b5a0303 training/metax/transformer_xl-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
# DDP type: 'apex' or 'native'.
ddp_type: str = "native"

vendor = "metax"
dist_backend = "nccl"
