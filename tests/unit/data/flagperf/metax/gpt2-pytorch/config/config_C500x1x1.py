# From FlagOpen/FlagPerf training/metax/gpt2-pytorch/config/config_C500x1x1.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *

gradient_accumulation_steps = 8
max_steps = 15000