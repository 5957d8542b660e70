# mixtral_8x7B_continuetrain / PyTorch on 4 nodes x 8 NVIDIA H100s (80 GB): FlagPerf's
# config_H100x4x8.py topology; FSDP2 over the 32 GPUs (16 bytes per parameter over 32: 21.7 GiB
# per GPU, a floor). Global batch 64 x 4096 tokens = 2 micro-batches of 1 per GPU a step.
from config_common import *  # noqa: F403 - the settings every topology shares
