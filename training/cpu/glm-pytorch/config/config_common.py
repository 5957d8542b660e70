# glm / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/glm/pytorch/prepare_data.py (generated cloze samples in FlagPerf's
# ReCoRD HDF5 layout, 32-token rows); the "tiny" model from random weights, fp32.
model_size = "tiny"
from_checkpoint = False
global_batch_size = 16
learning_rate = 3e-3
min_lr_ratio = 0.0
warmup_steps = 10
max_steps = 300
eval_every_steps = 10
eval_samples = 128
log_every_steps = 5
dtype = "fp32"
cpu_threads = 1               # the tiny model gains nothing from a second thread on a shared CI host
