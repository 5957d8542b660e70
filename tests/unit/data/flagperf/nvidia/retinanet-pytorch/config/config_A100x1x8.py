# From FlagOpen/FlagPerf training/nvidia/retinanet-pytorch/config/config_A100x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
vendor: str = "nvidia"

train_batch_size = 16
eval_batch_size = 16
lr = 0.08
