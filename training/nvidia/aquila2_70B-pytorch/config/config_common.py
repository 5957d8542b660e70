# aquila2_70B / PyTorch on NVIDIA GPUs, every topology: Aquila2-70B at 4k context, bf16 (FSDP2
# mixed precision: bf16 compute, fp32 master weights and gradient reduction), activation
# checkpointing, tensor parallel 8 inside a node with sequence parallelism, 4 pipeline stages
# (1F1B), FSDP2 over what is left (FlagPerf's aquila2_70B_container layout: ../../../benchmarks/
# aquila2_70B/pytorch/config/_base.py). Not run by chipperf's CI (no GPU there): see ../README.md.
# Performance mode (FlagPerf's LLM cases time a fixed number of steps): 10 warm-up steps, then
# 300 timed steps; throughput and MFU come from those 300.
run_mode = "performance"
perf_warmup_steps = 10
timed_steps = 300
eval_every_steps = 250
