# chatglm3_6b / PyTorch on NVIDIA GPUs, every topology: ChatGLM3-6B at 4096 tokens (FlagPerf's
# chatglm3_6b seqlength), bf16 (FSDP2 mixed precision: bf16 compute, fp32 master weights and
# gradient reduction), activation checkpointing, FSDP2 over every GPU (FlagPerf: DeepSpeed data
# parallel, 1 sequence per GPU, no accumulation). Not run by chipperf's CI (no GPU there): see
# ../README.md.
eval_every_steps = 250
# Performance mode by default: 10 warm-up steps, then 300 timed steps; throughput and MFU come
# from those 300. For a convergence run toward the case's target set run_mode = "convergence".
run_mode = "performance"
perf_warmup_steps = 10
timed_steps = 300
