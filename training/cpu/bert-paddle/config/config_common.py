# bert / Paddle on CPU, every topology: the CI size ("tiny": 2 layers, hidden 128,
# vocab 1024) on prepare_data.py's corpus (seq 64), fp32; the bert/pytorch case's CI
# settings, so the two frameworks run the same workload. See ../README.md.
model_size = "tiny"
eval_samples = 1024
global_batch_size = 32
learning_rate = 3e-3
warmup_steps = 100
max_steps = 800
eval_every_steps = 50
