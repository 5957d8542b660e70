# llava1.5_13b / PyTorch on 2 nodes x 8 NVIDIA A100s (80 GB): FlagPerf's per-GPU batch (16
# conversations in finetune, 32 in pretrain, no accumulation) with FSDP2 over the 16 GPUs (~12.4
# GiB of training state per GPU). Global batch 256 conversations.
from config_common import *  # noqa: F403 - the settings every topology shares

global_batch_size = 256
# pretrain: FlagPerf's 32 conversations per GPU x 16 GPUs, one epoch of 558,128 captions
pretrain_recipe = {"global_batch_size": 512, "micro_batch_size": 32, "learning_rate": 1e-3,
                   "warmup_steps": 33, "max_steps": 1090}
