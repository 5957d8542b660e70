# From FlagOpen/FlagPerf training/nvidia/bert-pytorch/config/config_A100x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2 (first lines).
from config_Ampere_common import *

gradient_accumulation_steps = 4
learning_rate = 0.00035
eval_batch_size = train_batch_size
