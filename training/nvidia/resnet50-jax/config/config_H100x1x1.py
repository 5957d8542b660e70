# resnet50 / JAX, 1 node x 1 NVIDIA H100: global batch 256 (the case default) on one GPU.
from config_common import *  # noqa: F403 - the settings every topology shares
