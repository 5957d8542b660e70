# llama2_7b / DeepSpeed on 8 NVIDIA A100s (80 GB): ZeRO-2 (optimizer states and gradients
# sharded over the 8 GPUs, bf16 weights replicated). Global batch 256 x 4096 tokens (~1M
# tokens, Llama 2's 4M scaled down) = 4 per micro-batch x 8 GPUs x 8 accumulation steps.
from config_common import *  # noqa: F403 - the settings every topology shares
