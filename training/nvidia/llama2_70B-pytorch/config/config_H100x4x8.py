# llama2_70B / PyTorch on 4 nodes x 8 NVIDIA H100s (80 GB): FlagPerf's config_H800x4x8.py
# layout on H100s, tensor parallel 8 inside each node, 4 pipeline stages, no data parallelism;
# global batch 44 (FlagPerf's 44 accumulation steps of 1) x 4096 tokens through the 1F1B
# schedule.
from config_common import *  # noqa: F403 - the settings every topology shares
