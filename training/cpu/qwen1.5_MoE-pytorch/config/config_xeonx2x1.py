# qwen1.5_MoE / PyTorch on 2 nodes x 1 CPU process: FSDP2 across the nodes.
from config_common import *  # noqa: F403 - the settings every topology shares

# CI's simulated nodes share one machine's cores: one torch thread per rank (two threads per
# rank on two shared cores took bert's 2x1 run from 82 s to 603 s: bert/pytorch/README.md).
cpu_threads = 1
