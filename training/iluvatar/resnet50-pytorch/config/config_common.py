# resnet50 / PyTorch on Iluvatar CoreX BI-V150, every topology: ImageNet-1k at 224x224, SGD +
# cosine, the nvidia configs' recipe; lr scales linearly with the batch from 0.1 at 256. Not
# run on this hardware by chipperf: see ../README.md.
# Per-chip batch (set by the per-topology files): 256 per chip, the nvidia configs' per-GPU
# batch unchanged: the chip's spec sheet gives no memory size to scale by.
# bf16 autocast as on NVIDIA; the spec sheet lists no bf16 figure for this chip: set dtype =
# "fp16" if its PyTorch build lacks bf16 autocast.
dtype = "bf16"
# channels_last as on NVIDIA: this vendor's PyTorch build answers to CUDA.
channels_last = True
# DataLoader workers per rank: the nvidia A100 configs' value; this vendor's host CPUs are
# unknown here.
num_workers = 10
log_every_steps = 50
