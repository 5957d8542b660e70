# transformer_xl / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/transformer_xl/pytorch/prepare_data.py (generated word text in
# FlagPerf's WikiText-103 Arrow layout, a 62-id vocabulary); the "tiny" model (fp32, _base.py's).
model_size = "tiny"
tgt_len = 16
global_batch_size = 8
learning_rate = 3e-3
warmup_steps = 10
max_steps = 300
eval_every_steps = 20
cpu_threads = 1               # the tiny model gains nothing from a second thread on a shared CI host
