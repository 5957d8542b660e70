# aquila2_70B / PyTorch on CPU, every topology: the CI size ("tiny": 4 layers, hidden 128, GQA
# 4 over 2 heads, 259 byte-level ids) on prepare_data.py's corpus, seq 128, fp32, 4
# micro-batches of 8 per data-parallel rank per step. The per-topology files set the layout.
# See ../README.md.
model_size = "tiny"
seq_len = 128
activation_checkpointing = False
reshard_after_forward = False
eval_samples = 128
global_batch_size = 32
micro_batch_size = 8
learning_rate = 5e-3
warmup_steps = 20
max_steps = 200
eval_every_steps = 20
log_every_steps = 5
dtype = "fp32"
tensor_parallel = 1
sequence_parallel = False     # no tensor parallelism to split the sequence over
pipeline_parallel = 1
cpu_threads = 1               # CI machines are shared: one torch thread per rank
