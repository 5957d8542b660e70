# tacotron2 / PyTorch on 1 NVIDIA A100 GPU (1 x 1): 128 utterances per GPU (the default global batch).
from config_common import *  # noqa: F403
