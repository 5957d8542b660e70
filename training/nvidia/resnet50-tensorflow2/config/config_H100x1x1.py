# resnet50 / TensorFlow 2, 1 node(s) x 1 NVIDIA H100: global batch 256 = 256 per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares
