# baichuan2_13b / PyTorch on NVIDIA GPUs, every topology: Baichuan2-13B at 4096 tokens (FlagPerf's
# baichuan2_13b seqlength), bf16 (FSDP2 mixed precision: bf16 compute, fp32 master weights and
# gradient reduction), activation checkpointing, FSDP2 over every GPU (FlagPerf: DeepSpeed data
# parallel, 1 sequence per GPU, 64 accumulation steps). Not run by chipperf's CI (no GPU there): see
# ../README.md.
# Performance mode by default: a step is 512 x 4096 tokens (FlagPerf's 64 accumulation steps),
# so 2 warm-up steps, then 20 timed steps (~42M tokens); throughput and MFU come from those 20.
# FlagPerf's epoch of 100M tokens is ~48 such steps (_base.py's max_steps 50). For a
# convergence run toward the case's target set run_mode = "convergence".
run_mode = "performance"
perf_warmup_steps = 2
timed_steps = 20
