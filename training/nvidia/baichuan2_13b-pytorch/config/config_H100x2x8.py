# baichuan2_13b / PyTorch on 2 nodes x 8 NVIDIA H100s (80 GB): FSDP2 over the 16 GPUs (the
# training state, 13.9B x 16 bytes, is ~12.9 GiB per GPU), 1 sequence of 4096 tokens per GPU x
# 32 accumulation steps: the same 512 x 4096 tokens per step as at 1 x 8 (FlagPerf's H800 2 x 8
# config runs seqlength 2048).
from config_common import *  # noqa: F403 - the settings every topology shares
