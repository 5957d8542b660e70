# llama3_70B_continuetrain / PyTorch on CPU, every topology: the CI size ("tiny": 4 layers,
# hidden 128, GQA 4 over 2 heads, 259 byte-level ids) continued from the checkpoint under the
# data dir (llama3_70B's tiny CI config with --set save_checkpoint=<data dir>/llama3_ckpt) on
# prepare_data.py's corpus, seq 128, fp32, as llama3_70B's CI configs train it; a short warm-up
# and a lower peak rate than pretraining's. The per-topology files set the layout. See ../README.md.
model_size = "tiny"
seq_len = 128
activation_checkpointing = False
reshard_after_forward = False
eval_samples = 64
global_batch_size = 32
micro_batch_size = 8
learning_rate = 2e-3
min_lr_ratio = 0.1
warmup_steps = 2
max_steps = 60
eval_every_steps = 5
log_every_steps = 1
dtype = "fp32"
tensor_parallel = 1
pipeline_parallel = 1
cpu_threads = 1               # CI machines are shared: one torch thread per rank
