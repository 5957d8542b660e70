# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/bert_hf-pytorch/config/config_BI-V100x1x8.py (values as FlagPerf sets them).
# ruff: noqa
train_batch_size = 12
eval_batch_size = 12
