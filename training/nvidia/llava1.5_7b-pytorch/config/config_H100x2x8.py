# llava1.5_7b / PyTorch on 2 nodes x 8 NVIDIA H100s (80 GB): FlagPerf's per-GPU batch (16
# conversations in finetune, no accumulation) with FSDP2 over the 16 GPUs (~6.3 GiB of training
# state per GPU). Global batch 256 conversations.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 256
