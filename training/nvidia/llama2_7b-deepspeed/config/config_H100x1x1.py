# llama2_7b / DeepSpeed on 1 NVIDIA H100 (80 GB). One GPU cannot hold 7B with its Adam
# states, so ZeRO-Offload keeps the fp32 master weights and Adam states in host memory
# (~81 GB of it) and steps them with DeepSpeed's CPU Adam. Global batch 64 x 4096 tokens =
# 2 per micro-batch x 32 accumulation steps; shorter warmup and more frequent logs.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 64
micro_batch_size = 2
warmup_steps = 500
offload_optimizer = True
eval_every_steps = 100
eval_samples = 64
log_every_steps = 1
