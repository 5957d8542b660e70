# From FlagOpen/FlagPerf@1b5a0303 training/mthreads/retinanet-pytorch/config/config_S4000x1x1.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "mthreads"

train_batch_size = 16
eval_batch_size = 16
lr = 0.01

dist_backend = "mccl"
seed = 42
