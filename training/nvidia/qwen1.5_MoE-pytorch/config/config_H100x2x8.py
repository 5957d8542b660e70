# qwen1.5_MoE / PyTorch on 2 nodes x 8 NVIDIA H100s (80 GB): FSDP2 over the 16 GPUs (the
# training state, 14.3B x 16 bytes, is ~13.3 GiB per GPU). FlagPerf's global batch of 512 x
# 4096 tokens (2M) = 32 accumulation steps of 1 sequence per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares (global batch 512)
