# llava1.5_7b_continuetrain / PyTorch on 4 nodes x 8 NVIDIA H100s (80 GB): FlagPerf's
# config_H100x4x8.py topology; FSDP2 over the 32 GPUs (4.04 bytes per parameter: ~0.83 GiB of
# training state per GPU). 256 samples a step = 8 per GPU, 4 micro-batches of 2.
from config_common import *  # noqa: F403 - the settings every topology shares
