# From FlagOpen/FlagPerf training/nvidia/llama2_7b-deepspeed/config/config_A100x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
seqlength = 4096
batchsize = 1
datafilename = "openwebtext_llama2_100M.npy"
theoryflops = 312000000000000.0
epochs = 1
flashattn = True
