# moflow / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/moflow/pytorch/prepare_data.py (1,024 generated chain molecules of
# 3-8 atoms, 128 held out); the "tiny" model (8 atoms; fp32, the default). Sampling at
# temperature 1.0: at FlagPerf's 0.3 the tiny model's molecules are nearly all one (README).
model_size = "tiny"
global_batch_size = 64
learning_rate = 6e-3
max_steps = 160
eval_every_steps = 20
log_every_steps = 5
num_workers = 0
temperature = 1.0
