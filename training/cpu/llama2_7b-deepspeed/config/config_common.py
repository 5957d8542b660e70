# llama2_7b / DeepSpeed on CPU, every topology (2 micro-batches of 16 per step on one
# process): the CI size ("tiny": 2 layers, hidden 128, Llama's 259 byte-level ids) on
# prepare_data.py's corpus, seq 128, fp32, ZeRO-2 with torch's AdamW (no fused-Adam
# build on CPU). See ../README.md.
model_size = "tiny"
seq_len = 128
activation_checkpointing = False
global_batch_size = 32
micro_batch_size = 16
learning_rate = 3e-3
warmup_steps = 30
max_steps = 600
eval_every_steps = 25
log_every_steps = 5
zero_stage = 2
torch_adam = True
dtype = "fp32"
