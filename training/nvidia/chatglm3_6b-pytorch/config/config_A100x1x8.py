# chatglm3_6b / PyTorch on 8 NVIDIA A100s (80 GB) of one node, as FlagPerf lays out its
# chatglm3_6b (config_A100x1x8.py: seqlength 4096, batchsize 1, ds_config accumulation 1):
# FSDP2 over the 8 GPUs (the training state, 6.24B x 16 bytes, is ~11.6 GiB per GPU). Global
# batch 8 x 4096 tokens.
from config_common import *  # noqa: F403 - the settings every topology shares
