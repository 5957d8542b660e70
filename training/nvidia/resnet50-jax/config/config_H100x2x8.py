# resnet50 / JAX, 2 nodes x 8 NVIDIA H100: one process per GPU (jax.distributed over both
# hosts, local_device_ids = [LOCAL_RANK]), global batch 4096 = 256 per GPU, lr 1.6.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 4096
