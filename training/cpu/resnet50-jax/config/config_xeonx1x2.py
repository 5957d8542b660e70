# resnet50 / JAX on CPU, 1 node x 2 processes: config_common.py's CI settings, the global batch
# of 32 split 16 + 16; the processes join through jax.distributed (gloo collectives on CPU).
from config_common import *  # noqa: F403 - the settings every topology shares
