# llama2_7b / DeepSpeed on NVIDIA A100 and H100 (80 GB), every topology: Llama-2-7B, 4k
# context, bf16, activation checkpointing; the multi-GPU settings (4 sequences per
# micro-batch, ZeRO-2, 2000 warmup steps) that the single-GPU files override. Global batch in
# tokens = global_batch_size x 4096. Not run by chipperf's CI (no GPU there): see ../README.md.
micro_batch_size = 4
zero_stage = 2
eval_every_steps = 250
# Performance mode by default (FlagPerf's LLM cases time a fixed number of steps): 10 warm-up
# steps, then 300 timed steps; throughput and MFU come from those 300. For a convergence run
# toward the case's target set run_mode = "convergence" (at full size it does not fit a
# 3,600 s round).
run_mode = "performance"
perf_warmup_steps = 10
timed_steps = 300
