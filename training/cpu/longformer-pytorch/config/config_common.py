# longformer / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/longformer/pytorch/prepare_data.py (generated token runs in
# FlagPerf's longformer layout, rows of 32, ids 4-67); the "tiny" model, fp32.
model_size = "tiny"
mask_token_id = 3
global_batch_size = 16
learning_rate = 3e-3
warmup_steps = 20
min_lr_ratio = 0.0
max_steps = 300
eval_every_steps = 20
eval_samples = 64
cpu_threads = 1               # the tiny model gains nothing from a second thread on a shared CI host
