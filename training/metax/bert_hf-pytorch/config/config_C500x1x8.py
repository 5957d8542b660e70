# From FlagOpen/FlagPerf@1b5a0303 training/metax/bert_hf-pytorch/config/config_C500x1x8.py (values as FlagPerf sets them).
# ruff: noqa
train_batch_size = 12
eval_batch_size = 12
