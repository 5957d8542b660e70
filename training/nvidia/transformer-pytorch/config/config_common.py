# transformer / PyTorch on NVIDIA GPUs: what every topology shares. FlagPerf's transformer:
# Transformer-big (pre-LN) on WMT14 en-de, fp32 (the recipe is config/_base.py's). The
# per-topology files set the global batch at 160 pairs per GPU (FlagPerf's max_tokens 5120 at
# WMT14's ~32 tokens per sentence). Not run by chipperf's CI (no GPU there).
log_every_steps = 50
