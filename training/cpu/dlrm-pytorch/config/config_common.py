# dlrm / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/dlrm/pytorch/prepare_data.py (32,768 + 4,096 generated samples,
# 26 tables of 3-40 rows); the "tiny" model (fp32, the default), SGD.
model_size = "tiny"
global_batch_size = 256
learning_rate = 2.0
warmup_steps = 10
max_steps = 160
eval_every_steps = 16
log_every_steps = 8
num_workers = 0
