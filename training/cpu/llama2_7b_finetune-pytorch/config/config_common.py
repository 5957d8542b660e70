# llama2_7b_finetune / PyTorch on CPU, every topology: the CI size ("tiny": 2 layers, hidden
# 128, 4 heads, 259 byte-level ids) with FlagPerf's LoRA recipe (rank 8, alpha 32, query and
# value maps) on prepare_data.py's generated dialogues, seq 128, fp32, one micro-batch of 16
# per data-parallel rank per step. The per-topology files set the layout. See ../README.md.
model_size = "tiny"
seq_len = 128
activation_checkpointing = False
reshard_after_forward = False
eval_samples = 64
global_batch_size = 16
micro_batch_size = 16
learning_rate = 2e-2
min_lr_ratio = 0.1
warmup_steps = 5
max_steps = 200
eval_every_steps = 10
log_every_steps = 5
dtype = "fp32"
cpu_threads = 1               # CI machines are shared: one torch thread per rank
