# resnet50 / JAX on CPU, 1 node x 1 process: config_common.py's CI settings.
from config_common import *  # noqa: F403 - the settings every topology shares
