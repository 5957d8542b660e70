# qwen1.5_MoE / PyTorch on CPU, every topology: the CI size ("tiny": 2 layers, hidden 128, 4
# heads, 8 routed experts of 64 with 4 per token and a shared expert of 176, 259 byte-level
# ids) on prepare_data.py's corpus, seq 128, fp32, one micro-batch of 16 per data-parallel rank
# per step. The per-topology files set the layout (every routed expert split over the
# tensor-parallel ranks, the shared expert replicated).
# See ../README.md.
model_size = "tiny"
seq_len = 128
activation_checkpointing = False
reshard_after_forward = False
eval_samples = 128
global_batch_size = 32
micro_batch_size = 16
learning_rate = 5e-3
warmup_steps = 20
max_steps = 200
eval_every_steps = 20
log_every_steps = 5
dtype = "fp32"
cpu_threads = 1               # CI machines are shared: one torch thread per rank
