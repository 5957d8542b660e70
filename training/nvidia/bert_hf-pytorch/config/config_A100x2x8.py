# bert_hf / PyTorch on 16 NVIDIA A100 GPU(s) (2x8): FlagPerf's A100x2x8: 12 per GPU, lr 7e-5.
from config_common import *  # noqa: F403

global_batch_size = 192
learning_rate = 7e-5
