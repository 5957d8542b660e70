# mask_rcnn / PyTorch on 16 NVIDIA H200 GPUs (2 x 8): 16 images per GPU.
from config_common import *  # noqa: F403

global_batch_size = 256
global_eval_batch_size = 128
