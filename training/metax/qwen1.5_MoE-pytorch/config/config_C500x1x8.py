# From FlagOpen/FlagPerf@1b5a0303 training/metax/qwen1.5_MoE-megatron/config/config_C500x1x8.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): batchsize = 1
# not carried (no such parameter in chipperf's case): gbs = 512
# not carried (no such parameter in chipperf's case): seqlength = 8192
# not carried (no such parameter in chipperf's case): padlength = 8192
# not carried (no such parameter in chipperf's case): precision = 'bf16'
tensor_parallel = 1
# not carried (no such parameter in chipperf's case): pipeline_parallel = 2
# not carried (no such parameter in chipperf's case): accumulate_steps = 1
theoryflops = -1
# not carried (no such parameter in chipperf's case): epochs = 1
