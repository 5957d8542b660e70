# transformer / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/transformer/pytorch/prepare_data.py (a generated word-for-word
# translation in fairseq's binarized layout); the "tiny" model, fp32.
model_size = "tiny"
global_batch_size = 32
learning_rate = 3e-3
warmup_steps = 20
max_steps = 300
eval_every_steps = 25
label_smoothing = 0.0
cpu_threads = 1               # the tiny model gains nothing from a second thread on a shared CI host
