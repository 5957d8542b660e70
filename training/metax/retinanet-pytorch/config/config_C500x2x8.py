# From FlagOpen/FlagPerf@1b5a0303 training/metax/retinanet-pytorch/config/config_C500x2x8.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "metax"

train_batch_size = 22
eval_batch_size = 22
lr = 0.02
max_epoch = 18
seed = 101
cudnn_benchmark = False
