# mixtral_8x7B_continuetrain / PyTorch on CPU, every topology: the CI size ("tiny": 2 layers,
# hidden 128, 4 experts with 2 routed per token, 259 byte-level ids) continued from the
# checkpoint under the data dir (mixtral_8x7B's tiny CI config with --set
# save_checkpoint=<data dir>/mixtral_ckpt) on prepare_data.py's corpus, seq 128, fp32, as
# mixtral_8x7B's CI configs train it; a short warm-up and a lower peak rate than pretraining's.
# See ../README.md.
model_size = "tiny"
seq_len = 128
activation_checkpointing = False
reshard_after_forward = False
eval_samples = 64
global_batch_size = 32
micro_batch_size = 16
learning_rate = 2e-3
warmup_steps = 2
max_steps = 60
eval_every_steps = 5
log_every_steps = 1
dtype = "fp32"
cpu_threads = 1               # CI machines are shared: one torch thread per rank
