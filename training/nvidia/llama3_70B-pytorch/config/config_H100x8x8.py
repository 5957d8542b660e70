# llama3_70B / PyTorch on 8 nodes x 8 NVIDIA H100s (80 GB): FlagPerf's config_H100x8x8.py
# layout, tensor parallel 8 inside each node, 4 pipeline stages, FSDP2 over the remaining 2
# data-parallel ranks. Global batch 512 x 8192 tokens = 256 micro-batches of 1 per data-
# parallel rank through the 1F1B schedule.
from config_common import *  # noqa: F403 - the settings every topology shares
