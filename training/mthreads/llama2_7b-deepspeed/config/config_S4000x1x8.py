# From FlagOpen/FlagPerf@9c646060 (branch mthreads_llama2) training/mthreads/llama2_7b-deepspeed/config/config_S4000x1x8.py (values as FlagPerf sets them).
# ruff: noqa
seqlength = 4096
batchsize = 6
datafilename = "openwebtext_llama2_100M.npy"
epochs = 1
theoryflops = 98000000000000.0
flashattn = True # using sdp attention
# not carried (no such parameter in chipperf's case): gradient_checkpointing_enable = True
