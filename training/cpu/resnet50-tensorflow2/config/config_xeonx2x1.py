# resnet50 / TensorFlow 2 on CPU, 2 nodes x 1 process: config_common.py's CI settings.
from config_common import *  # noqa: F403 - the settings every topology shares

# One rank per node gets all of a node's cores by default; CI's simulated nodes share one
# machine's cores, where that oversubscribes them: one TensorFlow thread per rank.
cpu_threads = 1
