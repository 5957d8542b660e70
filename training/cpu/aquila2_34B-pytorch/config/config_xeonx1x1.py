# aquila2_34B / PyTorch on 1 CPU process: config_common.py's CI settings (no parallelism).
from config_common import *  # noqa: F403 - the settings every topology shares
