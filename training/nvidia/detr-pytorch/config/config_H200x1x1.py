# detr / PyTorch on 1 NVIDIA H200 GPU(s) (1x1): 8 images per GPU, DETR's lr 1e-4 unscaled.
from config_common import *  # noqa: F403

global_batch_size = 8
global_eval_batch_size = 8
lr_reference_batch = 8
