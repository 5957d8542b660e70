# mixtral_8x7B_continuetrain / PyTorch on 2 nodes x 8 NVIDIA H100s (80 GB): FSDP2 over the 16
# GPUs (16 bytes per parameter over 16: 43.5 GiB per GPU, a floor). Global batch 64 x 4096
# tokens = 4 micro-batches of 1 per GPU a step.
from config_common import *  # noqa: F403 - the settings every topology shares
