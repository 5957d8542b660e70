# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/t5_small-pytorch/config/config_BI-V100x1x8.py (values as FlagPerf sets them).
# ruff: noqa
train_batch_size = 26
eval_batch_size = 26
