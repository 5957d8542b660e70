# From FlagOpen/FlagPerf training/metax/resnet50-pytorch/config/config_C500x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
lr = 0.4
train_batch_size = 128
eval_batch_size = 128

