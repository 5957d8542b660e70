# tacotron2 / PyTorch on 8 NVIDIA A100 GPUs (1 x 8): 128 utterances per GPU, FlagPerf's
# A100x1x8 learning rate (5e-4).
from config_common import *  # noqa: F403

global_batch_size = 1024
learning_rate = 5e-4
