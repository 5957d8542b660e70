# From FlagOpen/FlagPerf@1b5a0303 training/nvidia/gpt3_6.7B-paddle/config/config_TP2PP4SH1SP1A10080Gx1x8.py (values as FlagPerf sets them).
# ruff: noqa
# The chip name is the layout (TP, PP, sharding stage SH, sharding degree SP) then the chip
# (A100 40 or 80 GB); `chipperf plan` checks the layout against these degrees and lists the
# names the case does not read (chipperf/config/flagperf_knobs.py).
from config_flagperf import *  # the values FlagPerf's configs of this case share
per_device_train_batch_size = 4
per_device_eval_batch_size = 1024
tensor_parallel_degree = 2
pipeline_parallel_degree = 4
sharding_parallel_degree = 1
gradient_accumulation_steps = 256
sharding = 'stage1'
recompute = False
