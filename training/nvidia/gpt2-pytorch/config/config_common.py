# gpt2 / PyTorch on NVIDIA GPUs: what every topology shares. GPT-2 Medium (model_size
# "medium") on 1024-token windows, bf16 autocast; the recipe is config/_base.py's. The
# per-topology files set the global batch (8 sequences per GPU).
# Not run by chipperf's CI (no GPU there).
log_every_steps = 50
# Performance mode by default (FlagPerf's LLM cases time a fixed number of steps): 10 warm-up
# steps, then 300 timed steps; throughput and MFU come from those 300. For a convergence run
# toward the case's target set run_mode = "convergence" (at full size it does not fit a
# 3,600 s round).
run_mode = "performance"
perf_warmup_steps = 10
timed_steps = 300
