# chatglm3_6b / PyTorch on 2 nodes x 8 NVIDIA A100s (80 GB): FlagPerf's per-GPU batch (1
# sequence of 4096 tokens, no accumulation) with FSDP2 over the 16 GPUs (the training state,
# 6.24B x 16 bytes, is ~5.8 GiB per GPU). Global batch 16 x 4096 tokens.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 16
