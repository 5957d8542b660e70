# bert / Paddle on 1 NVIDIA A100 GPU(s) (1 node(s) x 1): BERT-large masked-LM pretraining
# from scratch on 512-token sequences, bf16 AMP (O1), AdamW. Global batch 32 = 32 per GPU.
# Not run by chipperf's CI (no GPU there): see ../README.md.
model_size = "large"
eval_samples = 10000
global_batch_size = 32
learning_rate = 1e-4
warmup_steps = 10000
max_steps = 1000000
eval_every_steps = 1000
log_every_steps = 50
dtype = "bf16"
