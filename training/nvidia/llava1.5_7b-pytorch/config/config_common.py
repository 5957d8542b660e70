# llava1.5_7b / PyTorch on NVIDIA GPUs, every topology: LLaVA-1.5-7B in FlagPerf's finetune
# stage (the projector and Vicuna-7B train, the CLIP tower is frozen; FlagPerf's
# scripts/finetune.sh: model_max_length 2048, 16 conversations per GPU, no accumulation, lr
# 2e-5, bf16, gradient checkpointing), bf16 compute (FSDP2 mixed precision, fp32 master
# weights), FSDP2 over every GPU (FlagPerf: DeepSpeed ZeRO-3 for this stage). Not run by
# chipperf's CI (no GPU there): see ../README.md.
#
# FlagPerf's pretrain stage (the projector alone on the 558K captions: 32 per GPU, lr 1e-3) is
# the same case with, in a topology's file:
#   stage = "pretrain"; global_batch_size = 32 x GPUs; micro_batch_size = 32
#   learning_rate = 1e-3; max_steps = 558128 // global_batch_size; warmup_steps = 3 % of it
# Performance mode by default: 10 warm-up steps, then 300 timed steps; throughput and MFU come
# from those 300. For a convergence run toward the case's target set run_mode = "convergence".
run_mode = "performance"
perf_warmup_steps = 10
timed_steps = 300
