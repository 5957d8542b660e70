# wav2vec2 / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/wav2vec2/pytorch/prepare_data.py (synthetic speech-like audio,
# 1,024 + 128 utterances of 1.05-1.6 s); the "tiny" model on 1 s crops, fp32.
model_size = "tiny"
train_subset = "synthetic-train"
valid_subset = "synthetic-dev"
crop_samples = 16000
num_workers = 0
global_batch_size = 16
learning_rate = 3e-3           # 1e-2 converged for some seeds only (README "CI status")
warmup_steps = 10
min_lr_ratio = 1.0             # constant after warmup: the decaying rate did not break out
max_steps = 600
gumbel_temp_decay = 0.99
eval_every_steps = 20
log_every_steps = 5
dtype = "fp32"
