# From FlagOpen/FlagPerf training/iluvatar/resnet50-pytorch/config/config_BI-V150x1x16.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
lr = 0.6
train_batch_size = 288
eval_batch_size = 288
