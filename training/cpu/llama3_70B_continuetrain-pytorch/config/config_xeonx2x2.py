# llama3_70B_continuetrain / PyTorch on 2 nodes x 2 CPU processes: tensor parallel 2 inside
# each node and 2 pipeline stages across the nodes (DCP reshards the checkpoint by parameter
# name as it loads; not run by CI).
from config_common import *  # noqa: F403 - the settings every topology shares

tensor_parallel = 2
pipeline_parallel = 2
