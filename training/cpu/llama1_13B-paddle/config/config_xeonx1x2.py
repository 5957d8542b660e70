"""1 node x 2 CPU processes: the same global batch of 16 as config_xeonx1x1.py."""
from config_common import *  # noqa: F403

per_device_train_batch_size = 8
