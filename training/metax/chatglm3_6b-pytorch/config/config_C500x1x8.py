# From FlagOpen/FlagPerf@1b5a0303 training/metax/chatglm3_6b-deepspeed/config/config_C500x1x8.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): seqlength = 2048
# not carried (no such parameter in chipperf's case): batchsize = 1
datafilename = "openwebtext_chatglm3_100M.npy"
theoryflops = -1
# not carried (no such parameter in chipperf's case): epochs = 1
flashattn = True
