# detr / PyTorch on 8 NVIDIA A100 GPUs (1x8): 8 images per GPU, DETR's lr 1e-4 at its own batch of 64
# (config/_base.py's global_batch_size).
from config_common import *  # noqa: F403
