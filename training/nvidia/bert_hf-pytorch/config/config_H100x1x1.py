# bert_hf / PyTorch on 1 NVIDIA H100 GPU(s) (1x1): FlagPerf's A100x1x1: 16 per GPU, lr 6.25e-6.
from config_common import *  # noqa: F403

global_batch_size = 16
learning_rate = 6.25e-6
