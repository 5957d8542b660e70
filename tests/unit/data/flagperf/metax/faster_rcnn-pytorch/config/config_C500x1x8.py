# From FlagOpen/FlagPerf training/metax/faster_rcnn-pytorch/config/config_C500x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
vendor: str = "metax"
train_batch_size = 2
eval_batch_size = 2
