# bert / Paddle on NVIDIA A100 and H100 GPUs, every topology: BERT-large masked-LM pretraining
# from scratch on 512-token sequences, bf16 AMP (O1), AdamW, 32 sequences per GPU (the
# per-topology files set the global batch). Not run by chipperf's CI (no GPU there): see
# ../README.md.
log_every_steps = 50
dtype = "bf16"
