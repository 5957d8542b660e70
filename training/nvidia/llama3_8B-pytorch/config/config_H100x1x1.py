# llama3_8B / PyTorch on 1 NVIDIA H100 (80 GB): the "1b" preset (Llama-3.2-1B's shape,
# 1,235,814,400 parameters, tied embeddings) on one GPU, no parallelism: seq 8192, one
# sequence per forward, 8 per optimizer step (65,536 tokens), bf16 autocast over fp32 master
# weights, SDPA (flash) attention, fused AdamW, each decoder layer compiled by Inductor, no
# activation checkpointing. Performance mode (config_common.py): 10 warm-up + 300 timed steps.
# Memory estimate, ~47 GB of 80: training state 16 B x 1.236e9 = 18.4 GiB (fp32 weights,
# gradients, AdamW's two moments; plan time checks it against the chip); autocast's bf16
# weight copies 2.3 GiB; activations ~2.5 MiB per token = 20 GiB for 8192 tokens (tensors
# saved for backward by this model with bf16 autocast, counted on the CPU at 256 and 512
# tokens: 126 KiB per token per layer + 522 KiB per token for the head and loss; the CPU's
# attention keeps more than flash does); the logits' gradient, ~6 GiB, during backward.
# Two sequences per forward would need ~70 GiB: too close to the 79.2 GiB usable.
from config_common import *  # noqa: F403 - the settings every topology shares

model_size = "1b"
tensor_parallel = 1
global_batch_size = 8
activation_checkpointing = False
reshard_after_forward = False
compile = True
