# From FlagOpen/FlagPerf training/nvidia/bert-pytorch/config/config_Ampere_common.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2
# (its first lines: the import of a torch class and the call that needs it).
from torch.cuda.amp import GradScaler
import os

grad_scaler = GradScaler(init_scale=float(os.getenv("INIT_LOSS_SCALE", 2**20)),
                         growth_interval=2000, enabled=True)

fp16 = True
train_batch_size = 24
