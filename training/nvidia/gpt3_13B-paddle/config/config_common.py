"""chipperf's own nvidia configs of gpt3_13B/paddle (beside FlagPerf's layout-named ones):
tensor parallel 2 inside the node, ZeRO stage 2 over the data-parallel ranks, bf16 AMP,
each layer recomputed in backward; global batch 1024 sequences of 2048 tokens (2M tokens).
Never run (no GPU here): settings, not measured choices."""

tensor_parallel_degree = 2
sharding = "stage2"
recompute = True
bf16 = True
per_device_train_batch_size = 2
warmup_steps = 2000
