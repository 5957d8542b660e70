# llava1.5_13b / PyTorch on 8 NVIDIA A100s (80 GB) of one node, as FlagPerf lays out its
# llava1.5_13b (config_A800x1x8.py: finetune_per_device_train_batch_size 16, pretrain 32,
# accumulation 1): FSDP2 over the 8 GPUs (the finetune state, 16 bytes per parameter, is ~24.9
# GiB per GPU). Global batch 128 conversations in finetune, 256 in pretrain (the case's defaults).
from config_common import *  # noqa: F403 - the settings every topology shares
