# mixtral_8x7B / PyTorch on NVIDIA GPUs, every topology: Mixtral-8x7B at 4k context, bf16
# (FSDP2 mixed precision: bf16 compute, fp32 master weights and gradient reduction),
# activation checkpointing; tensor parallel 8 inside a node (attention, and every expert's
# SwiGLU width 14336 split 8 ways), FSDP2 across nodes. Global batch in tokens =
# global_batch_size x 4096. Not run by chipperf's CI (no GPU there): see ../README.md.
eval_every_steps = 250
# Performance mode by default (FlagPerf's LLM cases time a fixed number of steps): 10 warm-up
# steps, then 300 timed steps; throughput and MFU come from those 300. For a convergence run
# toward the case's target set run_mode = "convergence" (at full size it does not fit a
# 3,600 s round).
run_mode = "performance"
perf_warmup_steps = 10
timed_steps = 300
