# From FlagOpen/FlagPerf training/kunlunxin/cpm-pytorch/config/config_R300x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *

train_batch_size = 64
eval_batch_size = train_batch_size
max_steps = 4000
max_samples_termination = 4391260

warmup = 0.2
learning_rate = 0.0005

seed = 23333
eval_interval_samples = 512