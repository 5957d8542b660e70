# bert / PyTorch on NVIDIA A100 and H100 (80 GB), every topology: BERT-large masked-LM
# pretraining on 512-token sequences, bf16 autocast, AdamW, 32 sequences per GPU (the
# per-topology files set the global batch; BERT's original recipe: batch 256, lr 1e-4, 10k
# warmup steps, linear decay over 1M steps). Not run by chipperf's CI (no GPU there): see
# ../README.md.
eval_every_steps = 2000
log_every_steps = 50
dtype = "bf16"
