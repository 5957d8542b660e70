# From FlagOpen/FlagPerf training/nvidia/gpt2-pytorch/config/config_common.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
vendor = 'nvidia'

# disable fp16
fp16 = False

dist_backend = "nccl"
