# From FlagOpen/FlagPerf training/nvidia/distilbert-pytorch/config/config_A100x1x1.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
train_batch_size = 32
gradient_accumulation_steps = 8
