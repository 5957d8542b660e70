"""One PyTorch optimizer step as the epoch-based cases take it (image classification,
detection): autocast by the case's dtype, backward with the fp16 gradient scaler when there is
one, the gradients' global norm clipped when asked, optimizer and per-step scheduler; and the
loss checked finite. Imports torch (``driver/__init__`` does not import it)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable
from typing import Any

import torch
from torch import nn

from chipperf_runtime.training.driver.errors import ConfigError, Diverged

AUTOCAST = {"bf16": torch.bfloat16, "fp16": torch.float16}


def autocast(device: torch.device, dtype: str) -> contextlib.AbstractContextManager:
    """Autocast to bf16 or fp16 on ``device``; fp32 runs as it is."""
    if dtype not in AUTOCAST:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=AUTOCAST[dtype])


def finite_loss(loss: torch.Tensor, step: int) -> float:
    """The loss as a number; a non-finite one ends the case (``Diverged``) naming the step."""
    value = float(loss.item())
    if not math.isfinite(value):
        raise Diverged(f"training diverged: loss is {value} at step {step}")
    return value


def hook_loss(value: Any, hook: str) -> torch.Tensor:
    """The loss a vendor adapter's whole-step hook returned; ``ConfigError`` naming the hook
    when it is not a tensor (the loop logs it and checks it finite)."""
    if not isinstance(value, torch.Tensor):
        raise ConfigError(f"the vendor's trainer adapter's {hook} returned "
                          f"{type(value).__name__}, not the step's loss: return the loss tensor")
    return value


def scaled_backward(loss: torch.Tensor, scaler: Any = None) -> None:
    """``loss.backward()``, through ``scaler`` (a torch.amp.GradScaler, for fp16) when given."""
    (loss if scaler is None else scaler.scale(loss)).backward()


def clip_and_step(optimizer: torch.optim.Optimizer, parameters: Iterable[nn.Parameter],
                  scaler: Any = None, clip_grad_norm: float | None = None) -> None:
    """After the backward: clip the gradients' global norm (unscaled first under ``scaler``)
    when ``clip_grad_norm`` is set, then the optimizer's step (through ``scaler``)."""
    if clip_grad_norm is not None:
        if scaler is not None:
            scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(parameters, clip_grad_norm)
    if scaler is None:
        optimizer.step()
    else:
        scaler.step(optimizer)
        scaler.update()


def backward_and_optimizer_step(loss: torch.Tensor, optimizer: torch.optim.Optimizer,
                                scaler: Any = None) -> None:
    """backward and the optimizer's step, through ``scaler`` (a GradScaler) when there is one:
    how a vendor adapter's whole-step hook (``train_step``, ``train_one_step``) ends."""
    scaled_backward(loss, scaler)
    clip_and_step(optimizer, (), scaler)


def backward_and_step(loss: torch.Tensor, optimizer: torch.optim.Optimizer,
                      scheduler: torch.optim.lr_scheduler.LRScheduler,
                      parameters: Iterable[nn.Parameter], *, scaler: Any = None,
                      clip_grad_norm: float | None = None) -> None:
    """backward, clip, optimizer step (through ``scaler``, a torch.amp.GradScaler, for fp16),
    then the scheduler's step."""
    scaled_backward(loss, scaler)
    clip_and_step(optimizer, parameters, scaler, clip_grad_norm)
    scheduler.step()
