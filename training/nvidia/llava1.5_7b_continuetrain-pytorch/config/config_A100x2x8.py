# llava1.5_7b_continuetrain / PyTorch on 2 nodes x 8 NVIDIA A100s (80 GB): FSDP2 over the 16 GPUs
# (~1.66 GiB of training state per GPU). 256 samples a step = 16 per GPU, 8 micro-batches of 2.
from config_common import *  # noqa: F403 - the settings every topology shares
