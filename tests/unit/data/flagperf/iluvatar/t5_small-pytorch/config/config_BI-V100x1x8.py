# From FlagOpen/FlagPerf training/iluvatar/t5_small-pytorch/config/config_BI-V100x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
train_batch_size = 26
eval_batch_size = 26
