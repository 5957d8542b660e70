# mixtral_8x7B / PyTorch on 2 nodes x 8 NVIDIA H100s (80 GB): tensor parallel 8 (attention and experts)
# inside each node, FSDP2 across the 2 nodes (data parallel 2; the training state is 43.5 GiB
# per GPU). Global batch 128 x 4096 tokens = 64 accumulation steps of 1 sequence per
# data-parallel rank.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 128
