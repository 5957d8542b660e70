# llama2_7b_finetune / PyTorch on one NVIDIA H100 (80 GB), FlagPerf's A100 layout
# (batch_size_training 2, one GPU): the frozen fp32 base is 6.74B x 4 bytes = 25.1 GiB.
# Global batch 2 x 4096 tokens.
from config_common import *  # noqa: F403 - the settings every topology shares
