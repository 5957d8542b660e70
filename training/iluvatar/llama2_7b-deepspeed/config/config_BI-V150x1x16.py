# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/llama2_7b-deepspeed/config/config_BI-V150x1x16.py (values as FlagPerf sets them).
# ruff: noqa
seqlength = 2048
batchsize = 1
datafilename = "openwebtext_llama2_100M.npy"
theoryflops = 192000000000000.0
epochs = 1
flashattn = True
