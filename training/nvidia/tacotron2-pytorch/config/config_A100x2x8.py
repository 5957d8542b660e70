# tacotron2 / PyTorch on 16 NVIDIA A100 GPUs (2 x 8): 128 utterances per GPU, FlagPerf's
# A100x2x8 learning rate (1e-3).
from config_common import *  # noqa: F403

global_batch_size = 2048
