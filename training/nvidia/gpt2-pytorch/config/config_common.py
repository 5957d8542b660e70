# gpt2 / PyTorch on NVIDIA GPUs: what every topology shares. GPT-2 Medium (model_size
# "medium") on 1024-token windows, bf16 autocast; the recipe is config/_base.py's. The
# per-topology files set the global batch (8 sequences per GPU).
# Not run by chipperf's CI (no GPU there).
log_every_steps = 50
