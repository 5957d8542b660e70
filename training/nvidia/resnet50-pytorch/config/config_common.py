# resnet50 / PyTorch on NVIDIA A100 and H100 GPUs, every topology: ImageNet-1k at 224x224,
# bf16 autocast, SGD + cosine, 256 images per GPU (the per-topology files set the global
# batch and the DataLoader workers of the chip's host); lr scales linearly with the batch
# from 0.1 at 256. Not run by chipperf's CI (no GPU there): see ../README.md.
# For a figure of the GPU rather than of the host's JPEG decoding, run with the images decoded
# once ahead (`--set data_mode=predecoded --set num_workers=0`, after
# `python -m chipperf_runtime.training.imagecls.predecoded DATA_DIR` on each host: see
# docs/adding-a-case.md "Pre-decoded input"); not yet measured on a GPU.
dtype = "bf16"
channels_last = True
log_every_steps = 50
