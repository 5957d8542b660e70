# From FlagOpen/FlagPerf@1b5a0303 training/metax/baichuan2_13b-deepspeed/config/config_C500x2x8.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): seqlength = 2048
# not carried (no such parameter in chipperf's case): batchsize = 4
datafilename = "openwebtext_baichuan2_100M.npy"
theoryflops = -1
# not carried (no such parameter in chipperf's case): epochs = 1
