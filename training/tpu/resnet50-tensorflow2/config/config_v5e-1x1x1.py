# resnet50 / TensorFlow 2 on a one-chip v5e slice (v5e-1: 1 chip, 1 host, 1 process).
from config_common import *  # noqa: F403 - the settings every slice shares
