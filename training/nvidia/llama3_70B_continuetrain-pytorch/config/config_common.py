# llama3_70B_continuetrain / PyTorch on NVIDIA GPUs, every topology: Llama-3-70B at 8k context
# continued from <data dir>/llama3_ckpt, bf16 (FSDP2 mixed precision), activation
# checkpointing, tensor parallel 8 inside a node, 4 pipeline stages (1F1B) across nodes, FSDP2
# over what is left (FlagScale's TP 8 x PP 4). Not run by chipperf's CI (no GPU there): see
# ../README.md.
# Performance mode as FlagPerf times it: 500 steps, the first one's time left out of the mean.
run_mode = "performance"
perf_warmup_steps = 1
timed_steps = 499
eval_every_steps = 250
