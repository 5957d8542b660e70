# mixtral_8x7B / PyTorch on 4 nodes x 8 NVIDIA H100s (80 GB): FlagPerf's config_H100x4x8.py
# tensor parallel 4 (attention and every expert's width), and expert parallel 8 over the 8
# data-parallel ranks (one whole expert per rank and layer, tokens exchanged by all-to-all);
# FSDP2 over the data-parallel ranks (the training state is 21.7 GiB per GPU). Global batch
# 128 x 4096 tokens = 16 accumulation steps of 1 sequence per data-parallel rank.
from config_common import *  # noqa: F403 - the settings every topology shares

tensor_parallel = 4
expert_parallel = 8
global_batch_size = 128
