# From FlagOpen/FlagPerf@1b5a0303 training/metax/WaveGlow-pytorch/config/config_C500x1x8.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "nvidia"
dist_backend = "nccl"
# not carried (no such parameter in chipperf's case): batch_size = 10
