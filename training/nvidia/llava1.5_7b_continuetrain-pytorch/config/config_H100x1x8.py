# llava1.5_7b_continuetrain / PyTorch on 8 NVIDIA H100s (80 GB) of one node: FSDP2 over the 8
# GPUs (~3.32 GiB of training state per GPU). 256 samples a step = 32 per GPU, 16 micro-batches
# of 2.
from config_common import *  # noqa: F403 - the settings every topology shares
