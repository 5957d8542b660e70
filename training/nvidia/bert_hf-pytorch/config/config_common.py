# bert_hf / PyTorch on NVIDIA GPUs: what every topology shares. FlagPerf's bert_hf: BERT-large
# from <data_dir>/weights, rows of 512, fp32 (the recipe is config/_base.py's). The
# per-topology files set FlagPerf's batch (12 sequences per GPU; 16 on one) and its rate.
# Not run by chipperf's CI (no GPU there).
log_every_steps = 50
