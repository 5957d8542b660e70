# mixtral_8x7B_continuetrain / PyTorch on 1 node x 2 CPU processes: FSDP2 over both (DCP
# reshards the checkpoint by parameter name as it loads).
from config_common import *  # noqa: F403 - the settings every topology shares
