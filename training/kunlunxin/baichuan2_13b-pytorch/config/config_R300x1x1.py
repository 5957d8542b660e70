# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/baichuan2_13b-deepspeed/config/config_R300x1x1.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): seqlength = 2048
# not carried (no such parameter in chipperf's case): batchsize = 1
datafilename = "openwebtext_baichuan2_100M.npy"
theoryflops = 256000000000000.0
# not carried (no such parameter in chipperf's case): epochs = 1
