# aquila2_7b / PyTorch on 8 NVIDIA A100s (80 GB) of one node, as FlagPerf lays out its
# aquila2_7b (config_A100x1x8.py: micro batch 1, 9 accumulation steps, data parallel 8): FSDP2
# over the 8 GPUs (the training state, 7.30B x 16 bytes, is ~13.6 GiB per GPU). Global batch
# 72 x 2048 tokens = 9 accumulation steps of 1 sequence per GPU. FlagPerf's in-container key
# aquila2_7B_container:in_container:A100:1:8 runs this config: its case config
# (FlagOpen/FlagPerf@1b5a0303 training/benchmarks/aquila2_7B_container/in_container/config.py:
# TENSOR_PARALLEL 1, PIPELINE_PARALLEL 1, MICRO_BATCHSIZE 1, GLOBAL_BATCHSIZE 72, SEQLENGTH 2048)
# is this layout; its launch trains in fp16 with a loss scale (--fp16 --initial-loss-scale
# 522893), chipperf in bf16 (the case's dtype); its nvidia vendor file (flops_16bit 312e12: the
# A100 sheet's; SSH port, NCCL and library settings of FlagPerf's cluster) sets no model knob.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 72
