# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/retinanet-pytorch/config/config_BI-V100x2x8.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "iluvatar"
train_batch_size = 8
eval_batch_size = 8
lr = 0.02
