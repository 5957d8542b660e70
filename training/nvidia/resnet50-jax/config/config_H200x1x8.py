# resnet50 / JAX, 1 node x 8 NVIDIA H200: one process per GPU (jax.distributed,
# local_device_ids = [LOCAL_RANK]), global batch 2048 = 256 per GPU, lr 0.8.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 2048
