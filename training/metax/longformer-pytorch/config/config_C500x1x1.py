# From FlagOpen/FlagPerf@1b5a0303 training/metax/longformer-pytorch/config/config_C500x1x1.py (values as FlagPerf sets them).
# ruff: noqa
train_batch_size = 16
gradient_accumulation_steps = 1
