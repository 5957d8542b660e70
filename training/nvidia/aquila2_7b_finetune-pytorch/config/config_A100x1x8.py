# aquila2_7b_finetune / PyTorch on 8 NVIDIA A100s (80 GB) of one node: FlagPerf's 1x8 layout
# (its config_A800x1x8.py; the A800 is the A100 with a slower NVLink), FSDP2 over the 8 GPUs
# (16 bytes per parameter over 8: 13.6 GiB per GPU, a floor). Fine-tunes the 679 steps of
# FlagPerf's 1e8 tokens to the target (convergence mode).
from config_common import *  # noqa: F403 - the settings every topology shares
