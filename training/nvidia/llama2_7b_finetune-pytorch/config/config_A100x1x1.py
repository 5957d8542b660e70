# llama2_7b_finetune / PyTorch on one NVIDIA A100 (80 GB), as FlagPerf lays out its
# llama2_7b_finetune (config_A100x1x1.py: batch_size_training 2, one GPU, no parallelism): the
# frozen fp32 base is 6.74B x 4 bytes = 25.1 GiB. Global batch 2 x 4096 tokens.
from config_common import *  # noqa: F403 - the settings every topology shares
