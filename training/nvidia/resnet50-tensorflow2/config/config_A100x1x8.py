# resnet50 / TensorFlow 2, 1 node(s) x 8 NVIDIA A100: global batch 2048 = 256 per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 2048
