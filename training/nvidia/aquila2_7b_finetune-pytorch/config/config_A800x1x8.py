# aquila2_7b_finetune / PyTorch on 8 NVIDIA A800s (80 GB) of one node: FlagPerf's own topology
# (FlagOpen/FlagPerf@1b5a0303, training/nvidia/aquila2_7b_finetune-flagscale/config/
# config_A800x1x8.py: tensor_parallel 1, pipeline_parallel 1, seqlength 2048, batchsize 1,
# train_tokens 1e8, theoryflops 312e12), as config_A100x1x8.py: FSDP2 over the 8 GPUs, the
# case's global batch 72 x 2048 tokens, 679 steps at most. The A800 is the A100 with a slower
# NVLink.
from config_common import *  # noqa: F403 - the settings every topology shares
