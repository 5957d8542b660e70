# baichuan2_13b / PyTorch on 8 NVIDIA A100s (80 GB) of one node, as FlagPerf lays out its
# baichuan2_13b (config_A100x1x8.py: seqlength 4096, batchsize 1; ds_config accumulation 64):
# FSDP2 over the 8 GPUs (the training state, 13.9B x 16 bytes, is ~25.9 GiB per GPU). Global
# batch 512 x 4096 tokens (_base.py).
from config_common import *  # noqa: F403 - the settings every topology shares
