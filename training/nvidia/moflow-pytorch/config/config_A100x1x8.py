# moflow / PyTorch on 8 NVIDIA A100 GPUs (1 x 8): 512 molecules per GPU.
from config_common import *  # noqa: F403

global_batch_size = 4096
max_steps = 16500             # 300 epochs of ZINC250k's ~225k training molecules
eval_every_steps = 275        # about 5 epochs
