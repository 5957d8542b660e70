# From FlagOpen/FlagPerf@1b5a0303 training/ascend/chatglm3_6b-deepspeed/config/config_A100x1x8.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): seqlength = 4096
# not carried (no such parameter in chipperf's case): batchsize = 1
datafilename = "openwebtext_chatglm3_100M.npy"
theoryflops = 312000000000000.0
# not carried (no such parameter in chipperf's case): epochs = 1
flashattn = True
