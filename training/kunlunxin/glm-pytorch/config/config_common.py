# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/glm-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor = 'kunlunxin'
fp16 = False

dist_backend = "xccl"

training_event = None
