# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/chatglm3_6b-deepspeed/config/config_BI-V150x1x16.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): seqlength = 2048
# not carried (no such parameter in chipperf's case): batchsize = 1
datafilename = "openwebtext_chatglm3_100M.npy"
theoryflops = 192000000000000.0
# not carried (no such parameter in chipperf's case): epochs = 1
flashattn = True
