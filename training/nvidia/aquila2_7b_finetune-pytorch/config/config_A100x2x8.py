# aquila2_7b_finetune / PyTorch on 2 nodes x 8 NVIDIA A100s (80 GB): FlagPerf's per-GPU batch
# (1 x 9 accumulation steps) over 16 GPUs, global batch 144 (FSDP2; 6.8 GiB of training state
# per GPU, a floor).
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 144
max_steps = 340               # FlagPerf's 1e8 tokens / 2048 / 144, rounded up
warmup_steps = 34             # 10 % of them
