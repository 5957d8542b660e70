# t5_3b / PyTorch on NVIDIA GPUs: what every topology shares. T5-3B (model_size "3b")
# fine-tuned from the data folder's t5-3b weights on CNN/DailyMail (sources of 1024 tokens,
# summaries of 128), fp32 with gradient checkpointing as the seed ran it; the recipe is
# config/_base.py's. The per-topology files set the global batch.
# Not run by chipperf's CI (no GPU there).
