# From FlagOpen/FlagPerf training/metax/distilbert-pytorch/config/config_C500x1x1.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
train_batch_size = 96
lr = 0.00001
