# From FlagOpen/FlagPerf@1b5a0303 training/metax/retinanet-pytorch/config/config_C500x1x1.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "metax"

train_batch_size = 40
eval_batch_size = 40
lr = 0.01
max_epoch = 1
cudnn_benchmark = False
