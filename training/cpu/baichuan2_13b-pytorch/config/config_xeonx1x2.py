# baichuan2_13b / PyTorch on 1 node x 2 CPU processes: tensor parallel over both.
from config_common import *  # noqa: F403 - the settings every topology shares

tensor_parallel = 2
