# qwen1.5_MoE / PyTorch on 8 NVIDIA A100s (80 GB) of one node (FlagPerf runs qwen1.5_MoE on
# 1 x 8 A800s, global batch 512): FSDP2 over the 8 GPUs (the training state, 14.3B x 16 bytes,
# is ~26.7 GiB per GPU). Global batch 512 x 4096 tokens (2M) = 64 accumulation steps of 1
# sequence per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares (global batch 512)
