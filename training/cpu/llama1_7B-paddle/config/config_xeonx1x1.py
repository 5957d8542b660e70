"""1 node x 1 CPU process: config_common.py as it is."""
from config_common import *  # noqa: F403
