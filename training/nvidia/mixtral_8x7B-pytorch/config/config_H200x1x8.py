# mixtral_8x7B / PyTorch on 8 NVIDIA H200s (141 GB) of one node: tensor parallel 8 (attention and experts),
# no data parallel (the training state, 46.7B x 16 bytes, is split over the 8 GPUs: 87 GiB
# each; 80 GB A100s and H100s cannot hold it at 1x8 and plan time refuses them). Global batch
# 64 x 4096 tokens = 64 accumulation steps of 1 sequence.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 64
