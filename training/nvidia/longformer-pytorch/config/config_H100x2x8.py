# longformer / PyTorch on 16 NVIDIA H100 GPU(s) (2x8): 16 sequences per GPU (FlagPerf's A100x2x8).
from config_common import *  # noqa: F403

global_batch_size = 256
