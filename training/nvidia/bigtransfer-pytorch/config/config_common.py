# bigtransfer / PyTorch on NVIDIA GPUs: what every topology shares. ImageNet-1k at 480x480,
# the full-size model (model_size "r152x2"), fp32 as FlagPerf's bigtransfer runs it; the
# recipe is config/_base.py's. The per-topology files set the global batch (16 per GPU, as
# FlagPerf's A100 configs; the lr scales with it). Not run by chipperf's CI (no GPU there).
num_workers = 10
log_every_steps = 20
