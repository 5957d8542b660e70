# mask_rcnn / PyTorch on 8 NVIDIA H100 GPUs (1 x 8): 16 images per GPU.
from config_common import *  # noqa: F403

global_batch_size = 128
