# llama3_70B / PyTorch on 4 nodes x 8 NVIDIA H200s (141 GB): TP 8 x PP 4, no data parallelism;
# the whole global batch (512 micro-batches) goes through one pipeline.
from config_common import *  # noqa: F403 - the settings every topology shares
