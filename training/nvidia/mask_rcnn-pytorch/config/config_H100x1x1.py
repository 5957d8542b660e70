# mask_rcnn / PyTorch on 1 NVIDIA H100 GPU (1 x 1): 16 images per GPU.
from config_common import *  # noqa: F403
