# mobilenetv2 / PyTorch on NVIDIA GPUs: what every topology shares. ImageNet-1k at 224x224,
# the full-size model (model_size "base"), bf16 autocast; the recipe is config/_base.py's.
# The per-topology files set the global batch (256 per GPU; the lr scales with it).
# Not run by chipperf's CI (no GPU there).
num_workers = 10
dtype = "bf16"
channels_last = True
log_every_steps = 50
