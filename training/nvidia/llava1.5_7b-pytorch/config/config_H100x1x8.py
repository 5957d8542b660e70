# llava1.5_7b / PyTorch on 8 NVIDIA H100s (80 GB) of one node, FlagPerf's A800 layout
# (config_A800x1x8.py: 16 conversations per GPU in finetune, no accumulation): FSDP2 over the 8
# GPUs (~12.6 GiB of training state per GPU). Global batch 128 conversations (the case's
# default; pretrain: 256, pretrain_recipe's default).
from config_common import *  # noqa: F403 - the settings every topology shares
