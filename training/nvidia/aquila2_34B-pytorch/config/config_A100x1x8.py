# aquila2_34B / PyTorch on 8 NVIDIA A100s (80 GB) of one node: chipperf's smallest layout, not
# FlagPerf's (config_A100x2x8.py is): tensor parallel 4 (with sequence parallelism) x 2 pipeline
# stages of 30 layers, no data parallelism; the training state, 33.69B x 16 bytes over 8 GPUs, is
# 62.8 GiB per GPU before activations (case.yaml's floor; activation checkpointing is on).
from config_common import *  # noqa: F403 - the settings every topology shares

pipeline_parallel = 2
