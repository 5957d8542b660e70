"""Kunlunxin's vit adaptation through chipperf's adapter hooks
(chipperf_runtime/training/driver/adapter.py).

What FlagPerf's kunlunxin vit adapter does (FlagOpen/FlagPerf@1b5a0303
training/kunlunxin/vit-pytorch/extern/trainer_adapter.py): ``convert_model`` and
``model_to_fp16`` hand the network back as it is, and ``create_grad_scaler`` makes no
grad scaler, so an fp16 run on the R300 is not loss-scaled. Here the same three hooks, with
chipperf's argument order (FlagPerf's take ``(args, model)``; chipperf offers
``(model, config)``). The scaler hook replaces the image loop's own, which would make
``torch.amp.GradScaler`` for fp16 on an accelerator; this folder's configs train in fp32
(the case default), where neither scales anything.
"""

from __future__ import annotations

from typing import Any

from torch import nn

HOOKS = ["convert_model", "model_to_fp16", "create_grad_scaler"]
NOT_CARRIED: dict[str, str] = {}


def convert_model(model: nn.Module, config: Any) -> nn.Module:
    """The network unchanged (FlagPerf's)."""
    return model


def model_to_fp16(model: nn.Module, config: Any) -> nn.Module:
    """The network unchanged: its weights stay fp32 (FlagPerf's)."""
    return model


def create_grad_scaler(config: Any) -> None:
    """No grad scaler, whatever the precision (FlagPerf's)."""
    return None
