# resnet50 / JAX on one v5p chip (v5p: 1 chip, 1 host, 1 process). NOT run on a TPU by chipperf.
from config_common import *  # noqa: F403 - the settings every slice shares
