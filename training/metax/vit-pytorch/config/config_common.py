# From FlagOpen/FlagPerf@1b5a0303 training/metax/vit-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = "metax"
dist_backend = "nccl"

epochs = 300
opt = "adamw"
lr = 0.003
weight_decay = 0.3
lr_scheduler = "cosineannealinglr"
lr_warmup_method = "linear" 
lr_warmup_epochs = 30
lr_warmup_decay = 0.033 
amp = False
label_smoothing = 0.11
mixup_alpha = 0.2
auto_augment = "ra"
clip_grad_norm = 1
ra_sampler = True
cutmix_alpha = 1.0
