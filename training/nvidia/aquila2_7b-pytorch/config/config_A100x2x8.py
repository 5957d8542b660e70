# aquila2_7b / PyTorch on 2 nodes x 8 NVIDIA A100s (80 GB): FSDP2 over the 16 GPUs (the training
# state, 7.30B x 16 bytes, is ~6.8 GiB per GPU), FlagPerf's per-GPU batch (micro batch 1, 9
# accumulation steps). Global batch 144 x 2048 tokens.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 144
