# mixtral_8x7B / PyTorch on 2 nodes x 1 CPU process: expert parallel 2 across the nodes (2 of
# the 4 experts per node, tokens exchanged by all-to-all), FSDP2 over the rest.
from config_common import *  # noqa: F403 - the settings every topology shares

expert_parallel = 2

# CI's simulated nodes share one machine's cores: one torch thread per rank (two threads per
# rank on two shared cores took bert's 2x1 run from 82 s to 603 s: bert/pytorch/README.md).
cpu_threads = 1
