# From FlagOpen/FlagPerf training/iluvatar/vit-pytorch/config/config_BI-V100x2x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *

train_batch_size = 224
eval_batch_size = 512
gradient_accumulation_steps = 2