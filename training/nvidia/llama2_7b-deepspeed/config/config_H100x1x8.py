# llama2_7b / DeepSpeed on 8 NVIDIA H100s (80 GB): Llama-2-7B, 4k context, bf16, ZeRO-2
# (optimizer states and gradients sharded over the 8 GPUs, bf16 weights replicated).
# Global batch 256 x 4096 tokens (~1M tokens, Llama 2's 4M scaled down) = 4 per micro-batch
# x 8 GPUs x 8 accumulation steps.
# Not run by chipperf's CI (no GPU there): see ../README.md.
model_size = "7b"
seq_len = 4096
activation_checkpointing = True
global_batch_size = 256
micro_batch_size = 4
learning_rate = 3e-4
warmup_steps = 2000
zero_stage = 2
eval_every_steps = 250
eval_samples = 256
log_every_steps = 10
dtype = "bf16"
