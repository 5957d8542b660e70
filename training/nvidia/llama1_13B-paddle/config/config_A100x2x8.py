"""2 node(s) x 8 A100: TP 2 x ZeRO stage 2 over 8."""
from config_common import *  # noqa: F403

sharding_parallel_degree = 8
gradient_accumulation_steps = 64
