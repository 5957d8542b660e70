# cpm / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/cpm/pytorch/prepare_data.py (generated token runs over ids 4-255);
# the "tiny" model from random weights on 32-token windows, fp32.
model_size = "tiny"
from_checkpoint = False
seq_len = 32
global_batch_size = 16
learning_rate = 3e-3
warmup_steps = 10
max_steps = 300
eval_every_steps = 10
eval_samples = 64
log_every_steps = 5
dtype = "fp32"
cpu_threads = 1               # the tiny model gains nothing from a second thread on a shared CI host
