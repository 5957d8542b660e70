# bert / Paddle on 1 node x 2 CPU processes: config_common.py's CI settings.
from config_common import *  # noqa: F403 - the settings every topology shares
