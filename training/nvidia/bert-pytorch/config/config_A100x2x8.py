# bert / PyTorch on 2 nodes x 8 NVIDIA A100s (80 GB): BERT-large masked-LM pretraining on 512-token
# sequences, bf16 autocast, AdamW. Global batch 512 = 32 sequences per GPU (BERT's original
# recipe: batch 256, lr 1e-4, 10k warmup steps, linear decay over 1M steps).
# Not run by chipperf's CI (no GPU there): see ../README.md.
model_size = "large"
eval_samples = 10000
global_batch_size = 512
learning_rate = 1e-4
warmup_steps = 10000
max_steps = 1000000
eval_every_steps = 2000
log_every_steps = 50
dtype = "bf16"
