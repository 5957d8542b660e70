# From FlagOpen/FlagPerf training/nvidia/resnet50-pytorch/config/config_A100x1x1.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
lr = 0.8
train_batch_size = 256
eval_batch_size = 256

