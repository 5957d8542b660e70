# tacotron2 / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/tacotron2/pytorch/prepare_data.py (256 + 32 generated utterances,
# 16 mel channels); the "tiny" model (fp32, the default).
model_size = "tiny"
global_batch_size = 16
learning_rate = 1e-2
min_lr_ratio = 1.0           # constant after warmup
weight_decay = 0.0
max_steps = 80
eval_every_steps = 5
log_every_steps = 5
num_workers = 0
