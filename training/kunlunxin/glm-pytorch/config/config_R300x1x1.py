# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/glm-pytorch/config/config_R300x1x1.py (values as FlagPerf sets them).
# ruff: noqa
from config_common import *

train_batch_size = 4
eval_batch_size = 4

lr = 1e-5
weight_decay = 0.1
adam_beta1 = 0.9
adam_beta2 = 0.999
adam_eps = 1e-08
gradient_accumulation_steps = 1
warmup = 0.1
lr_decay_ratio = 0.1
lr_decay_iters = 4338
log_freq = 1
seed = 4096
max_samples_termination = 4000
