# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/faster_rcnn-pytorch/config/config_R300x1x1.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "kunlunxin"
train_batch_size = 16
eval_batch_size = 16
lr = 0.16
