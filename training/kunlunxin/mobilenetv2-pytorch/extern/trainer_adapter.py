"""Kunlunxin's mobilenetv2 adaptation through chipperf's adapter hooks
(chipperf_runtime/training/driver/adapter.py).

What FlagPerf's kunlunxin mobilenetv2 adapter does (FlagOpen/FlagPerf@1b5a0303
training/kunlunxin/mobilenetv2-pytorch/extern/trainer_adapter.py): ``model_to_fp16`` casts
the whole network to half precision when the config's ``fp16`` is set (it prints so on the
main process), and ``create_grad_scaler`` makes no grad scaler: fp16 weights, fp16
gradients, no loss scaling and no fp32 master copy. Here the same two hooks: FlagPerf's
``fp16`` flag is chipperf's ``dtype == "fp16"`` (for bf16, which chipperf's loop also
calls the hook for, the network is left as it is, as FlagPerf's leaves it when ``fp16`` is
off). The image loop still autocasts; this folder's configs train in fp32 (FlagPerf's
``fp16 = False``), where the hook is not called.
"""

from __future__ import annotations

import os
from typing import Any

from torch import nn

HOOKS = ["model_to_fp16", "create_grad_scaler"]
NOT_CARRIED: dict[str, str] = {}


def model_to_fp16(model: nn.Module, config: Any) -> nn.Module:
    """The network in fp16 when the config's dtype is fp16; else unchanged."""
    if config.dtype != "fp16":
        return model
    if os.environ.get("RANK", "0") == "0":
        print("kunlunxin mobilenetv2 adapter: model_to_fp16: the network in fp16", flush=True)
    return model.half()


def create_grad_scaler(config: Any) -> None:
    """No grad scaler, whatever the precision (FlagPerf's)."""
    return None
