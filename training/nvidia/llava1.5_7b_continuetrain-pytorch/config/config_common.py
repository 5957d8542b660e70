# llava1.5_7b_continuetrain / PyTorch on NVIDIA GPUs, every topology: LLaVA-1.5-7B continued
# from <data dir>/LLaVA_megatron/vicuna_instruct_clip336_mlp_tp1_combined_mcore (written by
# llava1.5_7b's save_checkpoint), the projector trained under the frozen CLIP tower and
# Vicuna-7B decoder on LLaVA-Pretrain's captions: FlagScale's recipe (micro-batch 2, 256 samples
# a step, lr 1e-3, model_max_length 2048), bf16 compute (FSDP2 mixed precision, fp32 master
# weights), gradient checkpointing, FSDP2 over every GPU (FlagScale: TP 1 x PP 1, Megatron's
# distributed optimizer). Not run by chipperf's CI (no GPU there): see ../README.md.
# Performance mode as FlagPerf times it: its 5000 steps, the first one's time left out of the
# mean.
run_mode = "performance"
perf_warmup_steps = 1
timed_steps = 4999
