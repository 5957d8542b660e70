# qwen1.5_MoE / PyTorch on 8 NVIDIA A800s (80 GB) of one node: FlagPerf's own topology and
# global batch (FlagOpen/FlagPerf@1b5a0303, training/nvidia/qwen1.5_MoE-megatron/config/
# config_A800x1x8.py: gbs 512, batchsize 1, tensor_parallel 1, pipeline_parallel 2, seqlength
# 8192, bf16, theoryflops 312e12), as config_A100x1x8.py: FSDP2 over the 8 GPUs (no pipeline
# here), global batch 512 x 4096 tokens (the case's seq_len; FlagPerf's 8192 is set by
# seq_len = 8192 where wanted) = 64 accumulation steps of 1 sequence per GPU.
from config_common import *  # noqa: F403 - the settings every topology shares (global batch 512)
