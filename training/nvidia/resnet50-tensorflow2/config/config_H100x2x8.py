# resnet50 / TensorFlow 2, 2 node(s) x 8 NVIDIA H100: global batch 4096 = 256 per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 4096
