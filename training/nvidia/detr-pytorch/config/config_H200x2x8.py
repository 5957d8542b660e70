# detr / PyTorch on 16 NVIDIA H200 GPU(s) (2x8): 8 images per GPU, DETR's lr 1e-4 unscaled.
from config_common import *  # noqa: F403

global_batch_size = 128
global_eval_batch_size = 128
lr_reference_batch = 128
