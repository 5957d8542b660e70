"""Kunlunxin's tacotron2 adaptation through chipperf's adapter hooks
(chipperf_runtime/training/driver/adapter.py).

What FlagPerf's kunlunxin tacotron2 adapter does (FlagOpen/FlagPerf@1b5a0303
training/kunlunxin/tacotron2-pytorch/extern/trainer_adapter.py): ``create_grad_scaler``
makes no grad scaler, and ``calculate_loss(model, args, criterion, x, y)`` runs the
network's forward on the batch's inputs and applies the case's criterion to its prediction and
targets (FlagPerf's trainer does the same through torch.cuda.amp's scaler otherwise). Here the
same two hooks for the loss loop: chipperf's Tacotron2 takes the whole batch (text, lengths,
mels, their lengths, gate targets) and applies its criterion (the mel and post-net MSE and the
gate's BCE) inside its forward, so ``calculate_loss`` is that forward on the batch: the
prediction and the criterion in one call, on the step's batch, for training and evaluation.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

HOOKS = ["create_grad_scaler", "calculate_loss"]
NOT_CARRIED: dict[str, str] = {}


def create_grad_scaler(config: Any) -> None:
    """No grad scaler (FlagPerf's)."""
    return None


def calculate_loss(model: nn.Module, batch: tuple[Any, ...], config: Any) -> torch.Tensor:
    """The batch's mean loss: the network's prediction scored by the case's criterion."""
    return model(*batch)
