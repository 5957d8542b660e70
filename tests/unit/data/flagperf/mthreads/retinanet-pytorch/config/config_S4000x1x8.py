# From FlagOpen/FlagPerf training/mthreads/retinanet-pytorch/config/config_S4000x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
vendor: str = "mthreads"

train_batch_size = 16
eval_batch_size = 16
lr = 0.08

dist_backend = "mccl"

seed = 42
