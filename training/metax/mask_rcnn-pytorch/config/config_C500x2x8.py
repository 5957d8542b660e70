# From FlagOpen/FlagPerf@1b5a0303 training/metax/mask_rcnn-pytorch/config/config_C500x2x8.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "metax"
train_batch_size = 16
eval_batch_size = 16
lr = 0.016
max_epoch: int = 4
