# llama3_70B_continuetrain / PyTorch on 4 nodes x 8 NVIDIA H100s (80 GB): FlagPerf's
# config_H100x4x8.py topology; TP 8 x PP 4, no data parallelism (16 bytes per parameter over 32
# GPUs: 32.9 GiB per GPU, a floor). Global batch 1024 x 8192 tokens = 1024 micro-batches of 1
# through one pipeline per step.
from config_common import *  # noqa: F403 - the settings every topology shares
