# llama2_7b / DeepSpeed on 1 NVIDIA A100 (80 GB): Llama-2-7B, 4k context, bf16. One GPU
# cannot hold 7B with its Adam states, so ZeRO-Offload keeps the fp32 master weights and Adam
# states in host memory (~81 GB of it) and steps them with DeepSpeed's CPU Adam.
# Global batch 64 x 4096 tokens = 2 per micro-batch x 32 accumulation steps.
# Not run by chipperf's CI (no GPU there): see ../README.md.
model_size = "7b"
seq_len = 4096
activation_checkpointing = True
global_batch_size = 64
micro_batch_size = 2
learning_rate = 3e-4
warmup_steps = 500
zero_stage = 2
offload_optimizer = True
eval_every_steps = 100
eval_samples = 64
log_every_steps = 1
dtype = "bf16"
