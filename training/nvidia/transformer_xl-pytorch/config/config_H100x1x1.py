# transformer_xl / PyTorch on 1 NVIDIA H100 GPU(s) (1x1):
# FlagPerf's per-GPU batch (its A100x1x8): 60 samples (150-token segments)
# per GPU; evaluation about once an epoch.
from config_common import *  # noqa: F403

global_batch_size = 60
eval_every_steps = 11469
