# From FlagOpen/FlagPerf training/metax/retinanet-pytorch/config/config_C500x1x1.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
vendor: str = "metax"

train_batch_size = 40
eval_batch_size = 40
lr = 0.01
max_epoch = 1
cudnn_benchmark = False