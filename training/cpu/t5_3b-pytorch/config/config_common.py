# t5_3b / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: training/benchmarks/t5_3b/pytorch/prepare_data.py (generated CNN/DailyMail-like
# articles of three fact sentences and their one-line highlights, 8 values per fact, a
# 146-word vocabulary, sources of 24 tokens, summaries of 12); the "tiny" model from random
# weights, fp32, gradient checkpointing on (inherited from _base.py). Reaches ROUGE-1 95 in
# about 50 steps (the case README).
model_size = "tiny"
from_checkpoint = False
eval_samples = 64
global_batch_size = 32
learning_rate = 3e-3
weight_decay = 0.01
warmup_steps = 10
max_steps = 300
eval_every_steps = 5
log_every_steps = 5
grad_clip_norm = 1.0
