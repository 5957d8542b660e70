# longformer / PyTorch on 1 NVIDIA H200 GPU(s) (1x1): 16 sequences per GPU (FlagPerf's A100x1x1).
from config_common import *  # noqa: F403

global_batch_size = 16
