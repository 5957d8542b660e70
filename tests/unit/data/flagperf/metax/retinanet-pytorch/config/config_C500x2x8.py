# From FlagOpen/FlagPerf training/metax/retinanet-pytorch/config/config_C500x2x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
vendor: str = "metax"

train_batch_size = 22
eval_batch_size = 22
lr = 0.02
max_epoch = 18
seed = 101
cudnn_benchmark = False