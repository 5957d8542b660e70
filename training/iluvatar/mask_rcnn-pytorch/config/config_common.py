# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/mask_rcnn-pytorch/config/config_common.py (values as FlagPerf sets them).
# ruff: noqa
vendor: str = "iluvatar"
