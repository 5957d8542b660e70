# transformer_xl / PyTorch on NVIDIA GPUs: what every topology shares. FlagPerf's 16 x 410
# Transformer-XL (model_size "base") on its WikiText-103 files, fp32 as FlagPerf ran it; the
# recipe is config/_base.py's (FlagPerf's: Adam 2.5e-4, cosine over 200,000 steps, clip 0.25,
# 150-token segments). The per-topology files set FlagPerf's per-GPU batch (60) and an
# evaluation about once an epoch, as FlagPerf evaluates (WikiText-103's published 103,227,021
# training tokens / (global batch x 150)). Not run by chipperf's CI (no GPU there).
log_every_steps = 50
