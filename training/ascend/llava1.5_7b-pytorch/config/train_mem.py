# From FlagOpen/FlagPerf@1b5a0303 training/ascend/llava1.5_7b-deepspeed-torch/config/train_mem.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (an import: FlagPerf's modules are not in chipperf's case): import torch_npu
# not carried (an import: FlagPerf's modules are not in chipperf's case): from torch_npu.contrib import transfer_to_npu
# not carried (an import: FlagPerf's modules are not in chipperf's case): from train import train


if __name__ == "__main__":
    train(attn_implementation="flash_attention_2")
