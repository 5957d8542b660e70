# mixtral_8x7B / PyTorch on 2 nodes x 1 CPU process: expert parallel 2 across the nodes (2 of
# the 4 experts per node, tokens exchanged by all-to-all), FSDP2 over the rest.
from config_common import *  # noqa: F403 - the settings every topology shares

expert_parallel = 2
