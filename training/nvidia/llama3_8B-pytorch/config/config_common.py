# llama3_8B / PyTorch on NVIDIA GPUs, every topology: Llama-3-8B at 8k context, bf16 (FSDP2
# mixed precision: bf16 compute, fp32 master weights and gradient reduction), activation
# checkpointing, tensor parallel over the 8 GPUs of a node (NVLink) and FSDP2 across nodes.
# Global batch in tokens = global_batch_size x 8192. Not run by chipperf's CI (no GPU
# there): see ../README.md.
eval_every_steps = 250
