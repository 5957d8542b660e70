# aquila2_7b / PyTorch on 8 NVIDIA A100s (80 GB) of one node, as FlagPerf lays out its
# aquila2_7b (config_A100x1x8.py: micro batch 1, 9 accumulation steps, data parallel 8): FSDP2
# over the 8 GPUs (the training state, 7.30B x 16 bytes, is ~13.6 GiB per GPU). Global batch
# 72 x 2048 tokens = 9 accumulation steps of 1 sequence per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 72
