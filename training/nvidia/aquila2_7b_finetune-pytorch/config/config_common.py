# aquila2_7b_finetune / PyTorch on NVIDIA GPUs, every topology: Aquila2-7B at 2k context
# fine-tuned from <data dir>/checkpoints, bf16 (FSDP2 mixed precision), activation
# checkpointing, FSDP2 over every GPU (FlagPerf: TP 1, PP 1, data parallel 8). Global batch 72
# x 2048 tokens = 9 accumulation steps of 1 sequence per GPU at 1x8 (FlagPerf's). Not run by
# chipperf's CI (no GPU there): see ../README.md.
eval_every_steps = 100
