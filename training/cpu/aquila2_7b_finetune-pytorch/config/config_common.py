# aquila2_7b_finetune / PyTorch on CPU, every topology: the CI size ("tiny": 2 layers, hidden
# 128, 4 heads, 259 byte-level ids) fine-tuned from the checkpoint under the data dir
# (aquila2_7b's tiny CI config with --set save_checkpoint=<data dir>/checkpoints) on
# prepare_data.py's generated conversations, seq 128, fp32, one micro-batch of 16 per
# data-parallel rank per step, a short warm-up. See ../README.md.
model_size = "tiny"
seq_len = 128
activation_checkpointing = False
reshard_after_forward = False
eval_samples = 64
global_batch_size = 32
micro_batch_size = 16
learning_rate = 2e-3
min_lr_ratio = 0.1
warmup_steps = 2
max_steps = 60
eval_every_steps = 5
log_every_steps = 1
dtype = "fp32"
cpu_threads = 1               # CI machines are shared: one torch thread per rank
