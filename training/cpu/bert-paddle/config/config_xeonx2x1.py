# bert / Paddle on 2 nodes x 1 CPU process: config_common.py's CI settings.
from config_common import *  # noqa: F403 - the settings every topology shares

# One rank per node gets all of a node's cores by default; CI's simulated nodes share one
# machine's cores, where that oversubscribes them: one OpenMP thread per rank.
cpu_threads = 1
