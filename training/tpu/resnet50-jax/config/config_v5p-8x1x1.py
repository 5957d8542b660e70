# resnet50 / JAX on a v5p-8 slice (4 chips on 1 host, 1 process; the batch is split over the 4
# chips' devices by the case's Mesh). NOT run on a TPU by chipperf.
from config_common import *  # noqa: F403 - the settings every slice shares
