# From FlagOpen/FlagPerf training/kunlunxin/gpt2-pytorch/config/config_R300x1x1.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *

train_batch_size = 2
max_steps = 369120
gradient_accumulation_steps = 8