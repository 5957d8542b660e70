# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/llama2_70B-megatron/config/config_R300x10x8.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): seqlength = 4096
# not carried (no such parameter in chipperf's case): batchsize = 1
# not carried (no such parameter in chipperf's case): accumulate_steps = 44
# not carried (no such parameter in chipperf's case): train_tokens = 100000000
theoryflops = 256000000000000.0
# not carried (no such parameter in chipperf's case): epochs = 1
flashattn = False
# not carried (no such parameter in chipperf's case): recompute = False
tensor_parallel = 8
pipeline_parallel = 10
