# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/tacotron2-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
# DDP type: 'apex' or 'native'.
ddp_type: str = "native"

vendor = "iluvatar"
dist_backend = "nccl"
