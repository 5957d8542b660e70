# distilbert / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/bert/pytorch/prepare_data.py (the bert cases' corpus: WordPiece
# vocabulary of 1,024, sequences of 64); the "tiny" model, fp32.
model_size = "tiny"
eval_samples = 1024
global_batch_size = 32
learning_rate = 3e-3
warmup_steps = 100
max_steps = 800
eval_every_steps = 50
dtype = "fp32"
