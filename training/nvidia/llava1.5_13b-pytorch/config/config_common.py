# llava1.5_13b / PyTorch on NVIDIA GPUs, every topology: LLaVA-1.5-13B in FlagPerf's two stages,
# one after the other in one run as FlagPerf's case runs them (stage "both", the case's
# default): pretrain (the
# projector alone on the 558K captions; FlagPerf's scripts/pretrain.sh: 32 conversations per
# GPU, lr 1e-3: pretrain_recipe, the case's default for 8 GPUs), then finetune from the
# pretrained projector (the projector and Vicuna-13B train; scripts/finetune.sh: 16 per GPU, no
# accumulation, lr 2e-5). The CLIP tower is frozen in both; model_max_length 2048, bf16
# compute (FSDP2 mixed precision, fp32 master weights), gradient checkpointing, FSDP2 over
# every GPU (FlagPerf: DeepSpeed ZeRO-2 for pretrain, ZeRO-3 for finetune). Not run by
# chipperf's CI (no GPU there): see ../README.md.
#
# One stage alone: stage = "pretrain" or "finetune" in a topology's file (the knobs outside
# pretrain_recipe then apply to that stage: for pretrain set its batch and lr there).
# Performance mode by default: in each stage 10 warm-up steps, then 300 timed steps; the run's
# throughput and MFU come from the two stages' 300 together (README "Both stages"). For a
# convergence run toward the case's targets set run_mode = "convergence".
run_mode = "performance"
perf_warmup_steps = 10
timed_steps = 300
