# From FlagOpen/FlagPerf@1b5a0303 training/metax/retinanet-pytorch/config/config_C500x1x8.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "metax"

train_batch_size = 24
eval_batch_size = 24
lr = 0.04
seed = 192
cudnn_benchmark = False
