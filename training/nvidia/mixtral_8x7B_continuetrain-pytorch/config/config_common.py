# mixtral_8x7B_continuetrain / PyTorch on NVIDIA GPUs, every topology: Mixtral-8x7B at 4k
# context continued from <data dir>/mixtral_ckpt, bf16 (FSDP2 mixed precision), activation
# checkpointing, FSDP2 over every GPU (the checkpoint holds whole experts: no tensor or expert
# parallel, where FlagScale runs TP 4 x EP 4). Not run by chipperf's CI (no GPU there): see
# ../README.md.
# Performance mode as FlagPerf times it: 1000 steps, the first one's time left out of the mean.
run_mode = "performance"
perf_warmup_steps = 1
timed_steps = 999
eval_every_steps = 250
