# From FlagOpen/FlagPerf@1b5a0303 training/metax/vit-pytorch/config/config_C500x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 256
eval_batch_size = 512
gradient_accumulation_steps = 2
epochs = 2
