# llama2_70B / PyTorch on 4 nodes x 8 NVIDIA H800s (80 GB): FlagPerf's own topology and layout
# (FlagOpen/FlagPerf@1b5a0303, training/nvidia/llama2_70B-megatron/config/config_H800x4x8.py:
# tensor_parallel 8, pipeline_parallel 4, batchsize 1, accumulate_steps 44, seqlength 4096,
# theoryflops 989e12): TP 8 x PP 4, no data parallelism, global batch 44 x 4096 tokens through
# the 1F1B schedule, as config_H100x4x8.py (the H800 is the H100 with a slower NVLink).
from config_common import *  # noqa: F403 - the settings every topology shares
