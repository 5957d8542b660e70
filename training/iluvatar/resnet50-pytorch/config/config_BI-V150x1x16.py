# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/resnet50-pytorch/config/config_BI-V150x1x16.py (values as FlagPerf sets them). The modules it star-imports are written out in its place.
# ruff: noqa
lr = 0.6
train_batch_size = 288
eval_batch_size = 288
