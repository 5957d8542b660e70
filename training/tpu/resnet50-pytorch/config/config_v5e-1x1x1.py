# resnet50 / PyTorch (torch_xla) on a one-chip v5e slice (v5e-1: 1 chip, 1 host, 1 process).
# NOT run on a TPU by chipperf.
from config_common import *  # noqa: F403 - the settings every slice shares
