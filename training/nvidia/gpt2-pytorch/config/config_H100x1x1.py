# gpt2 / PyTorch on 1 NVIDIA H100 GPU(s) (1 x 1): GPT-2 Medium, 32 sequences of 1024 tokens
# per step, bf16 autocast, SDPA attention, fused AdamW, the network and its loss compiled by
# Inductor, the vocabulary padded to 50,304 (Megatron's multiple of 128). Measured on one H100
# SXM (docs/gpu-runs/h100-20261127-second/): 32 sequences 144,753 tokens/s, MFU 35.4 %,
# 44.5 GiB peak; 16 sequences 134,764 tokens/s, MFU 33.0 %, 25.9 GiB.
from config_common import *  # noqa: F403

global_batch_size = 32
compile = True
