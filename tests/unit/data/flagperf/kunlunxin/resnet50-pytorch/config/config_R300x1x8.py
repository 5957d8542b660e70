# From FlagOpen/FlagPerf training/kunlunxin/resnet50-pytorch/config/config_R300x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *

seed = 23333

learning_rate = 0.1
train_batch_size = 32
eval_batch_size = train_batch_size
# total samples of 100 epoch for iterating ILSVRC2012 dataset 
max_samples_termination = 133116700
