# llama2_7b / DeepSpeed on NVIDIA A100 and H100 (80 GB), every topology: Llama-2-7B, 4k
# context, bf16, activation checkpointing; the multi-GPU settings (4 sequences per
# micro-batch, ZeRO-2, 2000 warmup steps) that the single-GPU files override. Global batch in
# tokens = global_batch_size x 4096. Not run by chipperf's CI (no GPU there): see ../README.md.
micro_batch_size = 4
zero_stage = 2
eval_every_steps = 250
