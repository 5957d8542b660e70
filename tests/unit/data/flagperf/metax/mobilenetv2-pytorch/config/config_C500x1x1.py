# From FlagOpen/FlagPerf training/metax/mobilenetv2-pytorch/config/config_C500x1x1.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *

train_batch_size = 704
eval_batch_size = 704
lr = 0.72
max_epoch = 10
