# t5_small / PyTorch on NVIDIA GPUs: what every topology shares. T5-Small (model_size "small")
# fine-tuned from the data folder's t5-small weights on FlagPerf's CNN/DailyMail folder (sources
# of 1024 tokens, summaries of 128), fp32 as FlagPerf ran it; the recipe is config/_base.py's
# (global batch 256: FlagPerf's 32 per GPU on 8). The per-topology files set the global batch.
# Not run by chipperf's CI (no GPU there).
