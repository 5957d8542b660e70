# detr / PyTorch on 8 NVIDIA A100 GPU(s) (1x8): 8 images per GPU, DETR's lr 1e-4 unscaled.
from config_common import *  # noqa: F403

global_batch_size = 64
global_eval_batch_size = 64
lr_reference_batch = 64
