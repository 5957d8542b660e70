# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/bert_hf-pytorch/config/config_BI-V150x1x16.py (values as FlagPerf sets them).
# ruff: noqa
train_batch_size = 16
eval_batch_size = 16
amp = True
