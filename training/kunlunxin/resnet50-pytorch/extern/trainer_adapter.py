"""Kunlunxin's resnet50 adaptation through chipperf's adapter hooks
(chipperf_runtime/training/driver/adapter.py).

What FlagPerf's kunlunxin resnet50 adapter does (FlagOpen/FlagPerf@1b5a0303
training/kunlunxin/resnet50-pytorch/extern/trainer_adapter.py): one function,
``model_to_fp16``, which hands the network back as it is: on the R300 the reduced precision
comes from autocast, not from casting the weights. Here the same hook, called by the image loop
after ``convert_model`` when the config's ``dtype`` is fp16 or bf16 (this folder's configs:
bf16); the loop's autocast still applies.
"""

from __future__ import annotations

from typing import Any

from torch import nn

HOOKS = ["model_to_fp16"]
NOT_CARRIED: dict[str, str] = {}


def model_to_fp16(model: nn.Module, config: Any) -> nn.Module:
    """The network unchanged: its weights stay fp32 (FlagPerf's)."""
    return model
