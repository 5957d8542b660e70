# llama3_70B / PyTorch on 1 node x 4 CPU processes: 4 pipeline stages of one layer each (1F1B
# over the step's 4 micro-batches).
from config_common import *  # noqa: F403 - the settings every topology shares

pipeline_parallel = 4
