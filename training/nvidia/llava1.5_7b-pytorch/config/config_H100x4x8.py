# llava1.5_7b / PyTorch on 4 nodes x 8 NVIDIA H100s (80 GB): FlagPerf's H100 topology of its
# llava1.5_7b:flagscale_2409 key, with its deepspeed case's per-GPU batch (16 conversations in
# finetune, no accumulation): FSDP2 over the 32 GPUs (~3.2 GiB of training state per GPU).
# Global batch 512 conversations.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 512
