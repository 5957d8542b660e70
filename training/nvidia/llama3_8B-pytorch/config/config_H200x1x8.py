# llama3_8B / PyTorch on 8 NVIDIA H200s (141 GB) of one node: tensor parallel 8, no data
# parallel (the training state, 16 bytes per parameter, is split over the 8 GPUs: ~15 GiB
# each). Global batch 64 x 8192 tokens (~0.5M) = 64 accumulation steps of 1 sequence.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 64
