# llama3_70B / PyTorch on 4 nodes x 8 NVIDIA H100s (80 GB): the topology of FlagPerf's
# llama3_70B:flagscale_2409:H100:4:8 key (FlagOpen/FlagPerf@1b5a0303,
# training/nvidia/llama3_70B-flagscale/config/config_H100x4x8.py: FlagScale a44556c's
# train_llama3_70b.yaml, flops 989E12 = the H100 SXM's dense BF16 peak). TP 8 x PP 4, no data
# parallelism; the whole global batch (512 micro-batches) goes through one pipeline.
from config_common import *  # noqa: F403 - the settings every topology shares
