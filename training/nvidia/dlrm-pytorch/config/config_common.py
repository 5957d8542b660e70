# dlrm / PyTorch on NVIDIA GPUs: what every topology shares. DLRM (model_size "full") on
# Criteo Terabyte preprocessed by DLE at frequency limit 15, a global batch of 65,536 on every
# topology (FlagPerf's A100x1x1 train_batch_size; DLE's batch), bf16 autocast; the recipe is
# config/_base.py's. The tables are replicated on every GPU (data parallel; DLE shards them:
# README). Not run by chipperf's CI.
num_workers = 4
log_every_steps = 100
dtype = "bf16"
