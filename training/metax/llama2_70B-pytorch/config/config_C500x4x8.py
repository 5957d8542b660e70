# From FlagOpen/FlagPerf@1b5a0303 training/metax/llama2_70B-megatron/config/config_C500x4x8.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): seqlength = 4096
# not carried (no such parameter in chipperf's case): batchsize = 1
# not carried (no such parameter in chipperf's case): accumulate_steps =1024
# not carried (no such parameter in chipperf's case): train_tokens = 100000000
theoryflops = -1
# not carried (no such parameter in chipperf's case): epochs = 1
flashattn = True
# not carried (no such parameter in chipperf's case): recompute = True
tensor_parallel = 4
pipeline_parallel = 8
