# resnet50 / PyTorch on NVIDIA A100 and H100 GPUs, every topology: ImageNet-1k at 224x224,
# bf16 autocast, SGD + cosine, 256 images per GPU (the per-topology files set the global
# batch and the DataLoader workers of the chip's host); lr scales linearly with the batch
# from 0.1 at 256. Not run by chipperf's CI (no GPU there): see ../README.md.
dtype = "bf16"
channels_last = True
log_every_steps = 50
