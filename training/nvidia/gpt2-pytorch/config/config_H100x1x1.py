# gpt2 / PyTorch on 1 NVIDIA H100 GPU(s) (1 x 1): GPT-2 Medium, 16 sequences of 1024 tokens
# per step, bf16 autocast, SDPA (flash) attention, fused AdamW, the network compiled by
# Inductor. Memory: 8 sequences held 30.9 GB eager (first H100 run, issue 25): ~5.7 GB of
# training state (355 M parameters x 16 bytes) + ~3.2 GB of activations and logits per
# sequence, so 16 need ~57 GB of the 80 GB (less compiled).
from config_common import *  # noqa: F403

global_batch_size = 16
compile = True
