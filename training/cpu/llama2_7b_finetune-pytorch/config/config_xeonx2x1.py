# llama2_7b_finetune / PyTorch on 2 nodes x 1 CPU process: FSDP2 data parallel across the
# nodes (8 samples per rank per step).
from config_common import *  # noqa: F403 - the settings every topology shares

micro_batch_size = 8

# CI's simulated nodes share one machine's cores: one torch thread per rank (two threads per
# rank on two shared cores took bert's 2x1 run from 82 s to 603 s: bert/pytorch/README.md).
cpu_threads = 1
