# moflow / PyTorch on NVIDIA GPUs: what every topology shares. MoFlow (model_size "full", DLE's
# zinc250k model) on ZINC250k, 512 molecules per GPU (FlagPerf's train_batch_size, per GPU),
# bf16 autocast. The full size has no convergence target in chipperf (FlagPerf's NUV needs
# RDKit: the case README), so it runs in performance mode: FlagPerf's 20 warm-up steps, then
# 200 timed steps (chipperf's choice). Not run by chipperf's CI.
run_mode = "performance"
perf_warmup_steps = 20
timed_steps = 200
num_workers = 4
log_every_steps = 20
dtype = "bf16"
