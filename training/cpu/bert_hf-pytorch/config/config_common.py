# bert_hf / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/bert_hf/pytorch/prepare_data.py (generated token runs in
# FlagPerf's file layout, ids 110-255); the "tiny" model from random weights, fp32.
model_size = "tiny"
from_checkpoint = False
seq_len = 64
global_batch_size = 16
learning_rate = 3e-3
warmup_steps = 20
max_steps = 300
eval_every_steps = 20
eval_samples = 64
cpu_threads = 1               # the tiny model gains nothing from a second thread on a shared CI host
