# llama3_70B / PyTorch on 2 nodes x 2 CPU processes: FlagPerf's layout in small, tensor
# parallel 2 inside each node and 2 pipeline stages across the nodes.
from config_common import *  # noqa: F403 - the settings every topology shares

tensor_parallel = 2
pipeline_parallel = 2
