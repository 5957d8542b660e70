# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/faster_rcnn-pytorch/config/config_BI-V100x1x8.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "iluvatar"
train_batch_size = 8
eval_batch_size = 8
