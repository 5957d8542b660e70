# llama2_7b_finetune / PyTorch on 2 nodes x 8 NVIDIA H100s (80 GB): FlagPerf's per-GPU batch
# (2 samples of 4096 tokens) with FSDP2 data parallel over the 16 GPUs. Global batch 32 x 4096.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 32
