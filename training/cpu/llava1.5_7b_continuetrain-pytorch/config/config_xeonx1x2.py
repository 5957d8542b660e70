# llava1.5_7b_continuetrain / PyTorch on 1 node x 2 CPU processes: FSDP2 data parallel over both
# (8 samples per rank per step; DCP reshards the one-process checkpoint as it loads; run by
# hand, not by CI: the case's README).
from config_common import *  # noqa: F403 - the settings every topology shares

micro_batch_size = 8
