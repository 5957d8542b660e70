# llama3_8B / PyTorch on 2 nodes x 8 NVIDIA A100s (80 GB): tensor parallel 8 inside each
# node, FSDP2 across the 2 nodes (data parallel 2). Global batch 128 x 8192 tokens (~1M) =
# 64 accumulation steps of 1 sequence per data-parallel rank.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 128
