# llava1.5_7b / PyTorch on 4 nodes x 8 NVIDIA H100s (80 GB): FlagPerf's H100 topology of its
# llava1.5_7b:flagscale_2409 key, with its deepspeed case's per-GPU batch (16 conversations in
# finetune, no accumulation): FSDP2 over the 32 GPUs (~3.2 GiB of training state per GPU).
# Global batch 512 conversations.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 512
# pretrain: FlagPerf's 32 conversations per GPU x 32 GPUs, one epoch of 558,128 captions
pretrain_recipe = {"global_batch_size": 1024, "micro_batch_size": 32, "learning_rate": 1e-3,
                   "warmup_steps": 17, "max_steps": 545}
