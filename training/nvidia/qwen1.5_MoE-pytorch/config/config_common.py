# qwen1.5_MoE / PyTorch on NVIDIA GPUs, every topology: Qwen1.5-MoE-A2.7B at 4k context
# (FlagPerf's qwen1.5_MoE seqlength 4096), bf16 (FSDP2 mixed precision: bf16 compute, fp32
# master weights and gradient reduction), activation checkpointing, FSDP2 over every GPU with
# no tensor parallelism (FlagPerf's megatron_pai run is TP1 PP2 DP4; chipperf has no pipeline
# parallelism here). Global batch in tokens = global_batch_size x 4096. Not run by chipperf's
# CI (no GPU there): see ../README.md.
eval_every_steps = 250
# Performance mode by default: FlagPerf's qwen1.5_MoE trains 100 steps and reports their
# throughput and MFU; here 10 warm-up steps, then 90 timed steps (100 in all). For a
# convergence run toward the case's target set run_mode = "convergence".
run_mode = "performance"
perf_warmup_steps = 10
timed_steps = 90
