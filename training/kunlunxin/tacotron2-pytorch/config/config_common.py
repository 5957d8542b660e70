# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/tacotron2-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
ddp_type: str = "native"
vendor: str = "kunlunxin"
dist_backend = "xccl"
