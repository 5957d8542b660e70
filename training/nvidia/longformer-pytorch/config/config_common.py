# longformer / PyTorch on NVIDIA GPUs: what every topology shares. FlagPerf's longformer:
# longformer-base-4096 from random weights on wikitext-2 rows of 1024, fp32 (the recipe is
# config/_base.py's). The per-topology files set FlagPerf's batch: 16 sequences per GPU.
# Not run by chipperf's CI (no GPU there).
log_every_steps = 50
