# llama2_7b / DeepSpeed on 2 nodes x 8 NVIDIA H100s (80 GB): Llama-2-7B, 4k context,
# bf16, ZeRO-3 (weights, gradients and optimizer states sharded over all 16 GPUs).
# Global batch 512 x 4096 tokens (~2M tokens) = 4 per micro-batch x 16 GPUs x 8 steps.
# Not run by chipperf's CI (no GPU there): see ../README.md.
model_size = "7b"
seq_len = 4096
activation_checkpointing = True
global_batch_size = 512
micro_batch_size = 4
learning_rate = 3e-4
warmup_steps = 2000
zero_stage = 3
eval_every_steps = 250
eval_samples = 256
log_every_steps = 10
dtype = "bf16"
