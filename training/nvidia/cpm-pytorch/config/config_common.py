# cpm / PyTorch on NVIDIA GPUs: what every topology shares. CPM-1 Medium (model_size "medium")
# on 200-token windows, bf16 autocast; the recipe is config/_base.py's (FlagPerf's nvidia cpm:
# AdamW 5e-4, beta2 0.99, 20 % warmup). The per-topology files set FlagPerf's per-GPU batch
# and step count. Not run by chipperf's CI (no GPU there).
log_every_steps = 50
