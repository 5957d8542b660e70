# gpt2 / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/gpt2/pytorch/prepare_data.py (1,024-token byte-level BPE of the
# prose on the machine); the "tiny" model on 64-token windows, fp32.
model_size = "tiny"
seq_len = 64
eval_samples = 256
global_batch_size = 32
learning_rate = 2e-3
min_lr_ratio = 0.1
warmup_steps = 20
max_steps = 500
eval_every_steps = 25
log_every_steps = 5
dtype = "fp32"
