# llava1.5_13b / PyTorch on 8 NVIDIA H100s (80 GB) of one node, FlagPerf's A800 layout
# (config_A800x1x8.py: 16 conversations per GPU in finetune, 32 in pretrain, no accumulation):
# FSDP2 over the 8 GPUs (~24.9 GiB of training state per GPU). Global batch 128 conversations
# in finetune, 256 in pretrain (the case's defaults).
from config_common import *  # noqa: F403 - the settings every topology shares
