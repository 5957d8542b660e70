# llama3_8B / PyTorch on NVIDIA GPUs, every topology: Llama-3-8B at 8k context, bf16 (FSDP2
# mixed precision: bf16 compute, fp32 master weights and gradient reduction), activation
# checkpointing, tensor parallel over the 8 GPUs of a node (NVLink) and FSDP2 across nodes.
# Global batch in tokens = global_batch_size x 8192. Not run by chipperf's CI (no GPU
# there): see ../README.md.
eval_every_steps = 250
# Performance mode by default (FlagPerf's LLM cases time a fixed number of steps): 10 warm-up
# steps, then 300 timed steps; throughput and MFU come from those 300. For a convergence run
# toward the case's target set run_mode = "convergence" (at full size it does not fit a
# 3,600 s round).
run_mode = "performance"
perf_warmup_steps = 10
timed_steps = 300
