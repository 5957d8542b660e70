# baichuan2_13b / PyTorch on CPU, every topology: the CI size ("tiny": 2 layers, hidden 144, 6
# heads with ALiBi, NormHead, 259 byte-level ids) on prepare_data.py's corpus,
# seq 128, fp32, 16 samples per step (one micro-batch of 16 per data-parallel rank, 8 at
# data parallel 2), lr 1e-2. The per-topology files set the layout. See ../README.md.
model_size = "tiny"
seq_len = 128
activation_checkpointing = False
reshard_after_forward = False
eval_samples = 64
global_batch_size = 16
micro_batch_size = 16
learning_rate = 1e-2
max_steps = 200
log_every_steps = 5
dtype = "fp32"
cpu_threads = 1               # CI machines are shared: one torch thread per rank
