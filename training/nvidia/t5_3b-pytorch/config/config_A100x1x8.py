# t5_3b / PyTorch on 8 NVIDIA A100 80GB GPUs (1 x 8): the seed's A100 setting, batch 16 per
# GPU (global 128: config/_base.py's, inherited). The seed's figure at this setting
# (8.07 samples/s) is in docs/seed-benchmarks.md; chipperf has not measured it.
from config_common import *  # noqa: F403
