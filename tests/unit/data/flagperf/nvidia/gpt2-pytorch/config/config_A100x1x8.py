# From FlagOpen/FlagPerf training/nvidia/gpt2-pytorch/config/config_A100x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
from config_common import *
