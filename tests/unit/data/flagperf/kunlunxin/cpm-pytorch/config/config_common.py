# From FlagOpen/FlagPerf training/kunlunxin/cpm-pytorch/config/config_common.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
# DDP type: 'apex' or 'native'.
ddp_type: str = "native"
dist_backend = "xccl"

# disable fp16
fp16 = True

vendor = 'kunlunxin'
