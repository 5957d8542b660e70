# From FlagOpen/FlagPerf@1b5a0303 training/metax/bert_hf-pytorch/config/config_C500x1x1.py (values as FlagPerf sets them).
# ruff: noqa
train_batch_size = 16
eval_batch_size = 16

lr = 6.25e-06
