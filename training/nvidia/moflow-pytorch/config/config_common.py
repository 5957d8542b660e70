# moflow / PyTorch on NVIDIA GPUs: what every topology shares. MoFlow (model_size "full", DLE's
# zinc250k model) on ZINC250k, 512 molecules per GPU (FlagPerf's train_batch_size, per GPU),
# bf16 autocast, trained to FlagPerf's target NUV of 80 % (512 molecules sampled at
# temperature 0.3 per evaluation), evaluated about every 5 epochs as FlagPerf does: the base
# cadence (2,000 steps of 512) on one GPU, fewer steps of the larger global batches below.
# Not run by chipperf's CI.
num_workers = 4
log_every_steps = 20
dtype = "bf16"
