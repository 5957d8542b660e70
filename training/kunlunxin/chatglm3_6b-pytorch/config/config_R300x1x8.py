# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/chatglm3_6b-deepspeed/config/config_R300x1x8.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): seqlength = 4096
# not carried (no such parameter in chipperf's case): batchsize = 8
datafilename = "openwebtext_chatglm3_100M.npy"
theoryflops = 999000000000000.0
# not carried (no such parameter in chipperf's case): epochs = 1
flashattn = True
# not carried (no such parameter in chipperf's case): gradient_checkpointing_enable = True
# not carried (no such parameter in chipperf's case): load_ckpt_dir = "step0-ckpt"
