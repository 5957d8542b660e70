# llava1.5_7b / PyTorch on 8 NVIDIA A800s (80 GB) of one node: FlagPerf's own topology and
# batch (FlagOpen/FlagPerf@1b5a0303, training/nvidia/llava1.5_7b-deepspeed-torch/config/
# config_A800x1x8.py: pretrain_per_device_train_batch_size 32, finetune 16, accumulation 1 in
# both, theoryflops 312e12), as config_A100x1x8.py: FSDP2 over the 8 GPUs, global batch 256 in
# pretrain and 128 in finetune (the case's defaults). The A800 is the A100 with a slower NVLink.
from config_common import *  # noqa: F403 - the settings every topology shares
