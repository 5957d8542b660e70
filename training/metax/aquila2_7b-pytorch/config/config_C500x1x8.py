# From FlagOpen/FlagPerf@1b5a0303 training/metax/aquila2_7b-flagscale/config/config_C500x1x8.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): seqlength = 2048
# not carried (no such parameter in chipperf's case): batchsize = 4
# not carried (no such parameter in chipperf's case): accumulate_steps = 9
# not carried (no such parameter in chipperf's case): train_tokens = 100000000
theoryflops = -1
# not carried (no such parameter in chipperf's case): epochs = 1
flashattn = True
tensor_parallel = 2
# not carried (no such parameter in chipperf's case): pipeline_parallel = 2
