# t5_small / PyTorch on 16 NVIDIA H100 GPU(s) (2 x 8): 16 pairs per GPU, the global batch of
# the 1x8 recipe (its learning rate and 3-epoch step count hold unchanged).
from config_common import *  # noqa: F403
