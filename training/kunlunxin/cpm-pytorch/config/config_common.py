# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/cpm-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
# DDP type: 'apex' or 'native'.
ddp_type: str = "native"
dist_backend = "xccl"

# disable fp16
fp16 = True

vendor = 'kunlunxin'
