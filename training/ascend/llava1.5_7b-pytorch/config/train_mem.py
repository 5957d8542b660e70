# From FlagOpen/FlagPerf@1b5a0303 training/ascend/llava1.5_7b-deepspeed-torch/config/train_mem.py (values as FlagPerf sets them).
# ruff: noqa
import torch_npu
from torch_npu.contrib import transfer_to_npu
from train import train


if __name__ == "__main__":
    train(attn_implementation="flash_attention_2")
