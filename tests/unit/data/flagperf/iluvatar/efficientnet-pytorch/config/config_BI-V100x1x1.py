# From FlagOpen/FlagPerf training/iluvatar/efficientnet-pytorch/config/config_BI-V100x1x1.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *
lr = 0.05
train_batch_size = 96
eval_batch_size = 96
