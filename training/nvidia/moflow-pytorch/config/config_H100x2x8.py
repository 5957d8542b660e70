# moflow / PyTorch on 16 NVIDIA H100 GPUs (2 x 8): 512 molecules per GPU.
from config_common import *  # noqa: F403

global_batch_size = 8192
max_steps = 8250              # 300 epochs of ZINC250k's ~225k training molecules
eval_every_steps = 140        # about 5 epochs
