# bert / PyTorch on Cambricon MLU590, every topology: BERT-large masked-LM pretraining on
# 512-token sequences, AdamW, the nvidia configs' recipe (BERT's original: lr 1e-4, 10k warmup
# steps, linear decay over 1M steps). Not run on this hardware by chipperf: see ../README.md.
# Per-chip batch (set by the per-topology files): 32 per chip, the nvidia configs' per-GPU
# batch unchanged: the chip's spec sheet gives no memory size to scale by.
eval_every_steps = 2000
log_every_steps = 50
# bf16 autocast as on NVIDIA; the spec sheet lists no bf16 figure for this chip: set dtype =
# "fp16" if its PyTorch build lacks bf16 autocast.
dtype = "bf16"
