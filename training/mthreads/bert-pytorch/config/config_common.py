# bert / PyTorch on Moore Threads MTT S4000, every topology: BERT-large masked-LM pretraining
# on 512-token sequences, AdamW, the nvidia configs' recipe (BERT's original: lr 1e-4, 10k
# warmup steps, linear decay over 1M steps). Not run on this hardware by chipperf: see
# ../README.md.
# Per-chip batch (set by the per-topology files): 16 per chip: the nvidia configs' 32 per 80
# GiB A100 scaled by memory (44.7 GiB / 80 GiB = 17.9), rounded down to a multiple of 8.
eval_every_steps = 2000
log_every_steps = 50
# bf16 autocast as on NVIDIA (the spec sheet lists a bf16 peak).
dtype = "bf16"
