# aquila2_7b / PyTorch on NVIDIA GPUs, every topology: Aquila2-7B at 2k context (FlagPerf's
# aquila2_7b seqlength 2048), bf16 (FSDP2 mixed precision: bf16 compute, fp32 master weights
# and gradient reduction), activation checkpointing, FSDP2 over every GPU with no tensor
# parallelism (FlagPerf's aquila2_7b configs: tensor_parallel 1, pipeline_parallel 1). Global
# batch in tokens = global_batch_size x 2048. Not run by chipperf's CI (no GPU there): see
# ../README.md.
eval_every_steps = 250
# Performance mode by default (FlagPerf's LLM cases time a fixed number of steps): 10 warm-up
# steps, then 300 timed steps; throughput and MFU come from those 300. For a convergence run
# toward the case's target set run_mode = "convergence" (at full size it does not fit a
# 3,600 s round).
run_mode = "performance"
perf_warmup_steps = 10
timed_steps = 300
