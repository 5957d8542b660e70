# moflow / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/moflow/pytorch/prepare_data.py (1,024 generated molecules of 3-8
# atoms, 128 held out); the "tiny" model (8 atoms; fp32, the default).
model_size = "tiny"
global_batch_size = 64
learning_rate = 3e-3
max_steps = 60
eval_every_steps = 10
log_every_steps = 5
num_workers = 0
