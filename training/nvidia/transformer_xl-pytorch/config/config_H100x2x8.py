# transformer_xl / PyTorch on 16 NVIDIA H100 GPU(s) (2x8):
# FlagPerf's per-GPU batch (its A100x2x8): 60 samples (150-token segments)
# per GPU; evaluation about once an epoch.
from config_common import *  # noqa: F403

global_batch_size = 960
eval_every_steps = 716
