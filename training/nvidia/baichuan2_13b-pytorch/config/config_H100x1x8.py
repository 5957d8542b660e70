# baichuan2_13b / PyTorch on 8 NVIDIA H100s (80 GB) of one node: FlagPerf's A100 1 x 8 batch
# (seqlength 4096, batchsize 1, ds_config accumulation 64; its H800 config is 2 x 8 at 2048):
# FSDP2 over the 8 GPUs (the training state, 13.9B x 16 bytes, is ~25.9 GiB per GPU). Global
# batch 512 x 4096 tokens (_base.py).
from config_common import *  # noqa: F403 - the settings every topology shares
