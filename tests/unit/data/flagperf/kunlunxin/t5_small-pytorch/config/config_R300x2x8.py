# From FlagOpen/FlagPerf training/kunlunxin/t5_small-pytorch/config/config_R300x2x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *

train_batch_size = 16
eval_batch_size = 32
