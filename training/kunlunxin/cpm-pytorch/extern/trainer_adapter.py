"""Kunlunxin's cpm adaptation through chipperf's adapter hooks
(chipperf_runtime/training/driver/adapter.py).

What FlagPerf's kunlunxin cpm adapter does (FlagOpen/FlagPerf@1b5a0303
training/kunlunxin/cpm-pytorch/extern/trainer_adapter.py): ``convert_model`` hands the network
back as it is; ``create_optimizer`` makes torch's ``Adam`` (its default betas) over Megatron's
GPT-2 groups (every LayerNorm parameter and every bias without weight decay, the other weights
with ``weight_decay_rate``) at ``learning_rate``; ``model_to_fp16``, when ``fp16`` is set (its
R300 configs: yes), wraps the network in Megatron's ``FP16_Module`` (fp16 weights, the
LayerNorms kept fp32) and the optimizer in ``FP16_Optimizer`` (fp32 master copies, dynamic loss
scaling: from 2**32, doubling after ``loss_scale_window`` = 1000 clean steps, halving on an
overflow after ``hysteresis`` = 2 of them, never below ``min_scale`` = 1).

Here: ``convert_model`` and ``create_optimizer`` as FlagPerf's (chipperf's cpm names: the rate
``learning_rate``, the decay ``weight_decay``); for fp16 (chipperf's ``dtype``), the loss scaling
is ``create_grad_scaler``: torch.amp's ``GradScaler`` from 2**32, doubling after 1000 clean
steps and halving on an overflow; the loop's fp16 autocast runs the network over its fp32
weights (which are the master copy; autocast keeps LayerNorm in fp32, as FlagPerf's adapter
does).
"""

from __future__ import annotations

import os
from typing import Any

import torch
from torch import nn

from chipperf_runtime.device.torch import open_torch_device

HOOKS = ["convert_model", "create_optimizer", "create_grad_scaler"]
NOT_CARRIED = {
    "model_to_fp16": "Megatron's FP16_Module and FP16_Optimizer (FlagPerf's case code, not "
        "in chipperf): fp16 here is the loop's fp16 autocast over fp32 weights with "
        "create_grad_scaler's dynamic loss scale, the same fp32 master weights and fp16 "
        "arithmetic without a held fp16 copy of the weights",
    "hysteresis, min_scale": "FP16_Optimizer halves the scale after 2 "
        "overflows and never below 1; torch.amp's GradScaler halves on each overflow, with "
        "no floor",
}
INIT_SCALE = 2.0 ** 32            # Megatron's DynamicLossScaler's initial scale
LOSS_SCALE_WINDOW = 1000          # FlagPerf's cpm loss_scale_window


def convert_model(model: nn.Module, config: Any) -> nn.Module:
    """The network unchanged (FlagPerf's)."""
    return model


def create_optimizer(model: nn.Module, config: Any) -> torch.optim.Optimizer:
    """torch's Adam over Megatron's GPT-2 groups: no weight decay on LayerNorms and biases.
    A parameter two modules share (the LM head tied to the word embeddings) is taken once:
    twice in a group it would be stepped, and unscaled by a grad scaler, twice."""
    decay: list[nn.Parameter] = []
    no_decay: list[nn.Parameter] = []
    seen: set[int] = set()
    for module in model.modules():
        for name, param in module.named_parameters(recurse=False):
            if id(param) in seen:
                continue
            seen.add(id(param))
            plain = isinstance(module, nn.LayerNorm) or name == "bias"
            (no_decay if plain else decay).append(param)
    return torch.optim.Adam([{"params": decay, "weight_decay": config.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=config.learning_rate)


def create_grad_scaler(config: Any) -> Any:
    """fp16: a dynamic loss scaler from 2**32 growing every 1000 clean steps; else none."""
    if config.dtype != "fp16":
        return None
    device = open_torch_device(int(os.environ.get("LOCAL_RANK", "0"))).autocast_type
    return torch.amp.GradScaler(device, init_scale=INIT_SCALE, growth_interval=LOSS_SCALE_WINDOW)
