# bert / Paddle, 1 node(s) x 1 NVIDIA H100: global batch 32 = 32 per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 32
