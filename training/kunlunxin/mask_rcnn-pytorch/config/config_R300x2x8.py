# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/mask_rcnn-pytorch/config/config_R300x2x8.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "kunlunxin"

dist_backend = "xccl"

train_batch_size = 8
eval_batch_size = 8
lr = 0.16
