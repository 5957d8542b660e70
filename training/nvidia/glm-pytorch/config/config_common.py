# glm / PyTorch on NVIDIA GPUs: what every topology shares. GLM-Large (model_size "large") on
# FlagPerf's ReCoRD files, bf16 autocast; the recipe is config/_base.py's (FlagPerf's nvidia
# glm: AdamW 1e-5, 10 % warmup, linear decay to 0.1 x over 4,338 steps). The per-topology files
# set FlagPerf's per-GPU batch. Not run by chipperf's CI (no GPU there).
log_every_steps = 50
