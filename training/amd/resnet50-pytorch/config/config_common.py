# resnet50 / PyTorch on AMD Instinct MI300X, every topology: ImageNet-1k at 224x224, SGD +
# cosine, the nvidia configs' recipe; lr scales linearly with the batch from 0.1 at 256. Not
# run on this hardware by chipperf: see ../README.md.
# Per-chip batch (set by the per-topology files): 568 per chip: the nvidia configs' 256 per 80
# GiB A100 scaled by memory (178.8 GiB / 80 GiB = 572.2), rounded down to a multiple of 8.
# bf16 autocast as on NVIDIA (the spec sheet lists a bf16 peak).
dtype = "bf16"
# channels_last as on NVIDIA: this vendor's PyTorch build answers to CUDA.
channels_last = True
# DataLoader workers per rank: the nvidia A100 configs' value; this vendor's host CPUs are
# unknown here.
num_workers = 10
log_every_steps = 50
