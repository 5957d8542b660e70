# From FlagOpen/FlagPerf training/kunlunxin/mobilenetv2-pytorch/config/config_R300x1x1.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *

train_batch_size = 256
eval_batch_size = 128

lr = 0.1
gradient_accumulation_steps = 1
warmup = 0.1
lr_decay_ratio = 0.1
lr_decay_iters = 4338
log_freq = 10
