# From FlagOpen/FlagPerf training/iluvatar/retinanet-pytorch/config/config_BI-V100x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
vendor: str = "iluvatar"
train_batch_size = 8
eval_batch_size = 8
lr = 0.02
