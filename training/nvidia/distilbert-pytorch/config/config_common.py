# distilbert / PyTorch on NVIDIA GPUs: what every topology shares. DistilBERT-base
# (model_size "base") masked-LM pretraining on the data's sequences (512 tokens), bf16
# autocast; the recipe is config/_base.py's. The per-topology files set the global batch
# (64 sequences per GPU). Not run by chipperf's CI (no GPU there).
eval_every_steps = 2000
log_every_steps = 50
