# llama2_7b / DeepSpeed on 2 nodes x 8 NVIDIA A100s (80 GB): ZeRO-3 (weights, gradients and
# optimizer states sharded over all 16 GPUs). Global batch 512 x 4096 tokens (~2M tokens)
# = 4 per micro-batch x 16 GPUs x 8 steps.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 512
zero_stage = 3
