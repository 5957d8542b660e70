# waveglow / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/waveglow/pytorch/prepare_data.py (128 + 16 generated tone clips
# of 0.1-0.2 s); the "tiny" model on 1,024-sample segments (fp32, the default).
model_size = "tiny"
global_batch_size = 16
learning_rate = 3e-3
max_steps = 80
eval_every_steps = 5
log_every_steps = 5
num_workers = 0
