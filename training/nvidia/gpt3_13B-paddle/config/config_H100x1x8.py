"""1 node(s) x 8 H100: TP 2 x ZeRO stage 2 over 4."""
from config_common import *  # noqa: F403

sharding_parallel_degree = 4
gradient_accumulation_steps = 128
