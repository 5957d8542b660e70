# transformer / PyTorch on CPU, 2x1: the CI configuration (config_common.py).
from config_common import *  # noqa: F403

# CI's simulated nodes share one machine's cores: one torch thread per rank (two threads per
# rank on two shared cores took bert's 2x1 run from 82 s to 603 s: bert/pytorch/README.md).
cpu_threads = 1
