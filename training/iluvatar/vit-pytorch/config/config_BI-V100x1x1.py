# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/vit-pytorch/config/config_BI-V100x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 224
eval_batch_size = 512
gradient_accumulation_steps = 2
