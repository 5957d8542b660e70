# From FlagOpen/FlagPerf@1b5a0303 training/ascend/bert_hf/config/config_Atlas800TA2x1x1.py (values as FlagPerf sets them).
# ruff: noqa
train_batch_size = 16
eval_batch_size = 16

lr = 6.25e-06
