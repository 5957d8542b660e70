# llama2_7b_finetune / PyTorch on NVIDIA GPUs, every topology: FlagPerf's recipe (_base.py:
# Llama-2-7B, LoRA r 8 / alpha 32 on q_proj and v_proj, seq 4096, 2 samples per GPU per step,
# lr 1e-4), bf16 compute (autocast on one GPU, FSDP2 mixed precision on several; fp32
# weights), activation checkpointing. Not run by chipperf's CI (no GPU there): see ../README.md.
eval_every_steps = 500
# Performance mode by default (FlagPerf's case reports tokens/s and MFU from its step times):
# 10 warm-up steps, then 300 timed steps. For a convergence run toward the case's target set
# run_mode = "convergence".
run_mode = "performance"
perf_warmup_steps = 10
timed_steps = 300
