# From FlagOpen/FlagPerf training/kunlunxin/glm-pytorch/config/config_common.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2.
vendor = 'kunlunxin'
fp16 = False

dist_backend = "xccl"

training_event = None
