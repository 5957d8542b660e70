# aquila2_70B / PyTorch on 2 nodes x 8 NVIDIA A100s (80 GB): chipperf's smallest layout, not
# FlagPerf's (config_A100x4x8.py is): tensor parallel 8 (with sequence parallelism) inside each
# node x 2 pipeline stages of 40 layers across the nodes, no data parallelism; the training
# state, 70.09B x 16 bytes over 16 GPUs, is 65.3 GiB per GPU before activations (case.yaml's
# floor; activation checkpointing is on).
from config_common import *  # noqa: F403 - the settings every topology shares

pipeline_parallel = 2
