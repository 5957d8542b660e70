# From FlagOpen/FlagPerf training/kunlunxin/mobilenetv2-pytorch/config/config_R300x2x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *

train_batch_size = 256
eval_batch_size = 256

lr: float = 0.045 * 16

gradient_accumulation_steps = 1
