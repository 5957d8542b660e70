# From FlagOpen/FlagPerf training/iluvatar/llama2_7b-deepspeed/config/config_BI-V150x1x16.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
seqlength = 2048
batchsize = 1
datafilename = "openwebtext_llama2_100M.npy"
theoryflops = 192000000000000.0
epochs = 1
flashattn = True
