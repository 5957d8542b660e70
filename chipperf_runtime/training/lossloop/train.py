"""The PyTorch side of the loss-loop cases (a ``textlm.loop.Trainer``): the model's forward
returns its own loss, the mean over the batch; steps, evaluation cadence, STEP_END, the
non-finite loss check and early stop are ``textlm.loop``'s."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

import torch
from torch import nn

from chipperf_runtime.training.driver.torchdist import all_reduce_sum
from chipperf_runtime.training.driver.torchstep import backward_and_step, hook_loss

AUTOCAST = {"bf16": torch.bfloat16}
Batch = tuple[Any, ...]
# (the unwrapped model, this rank's eval batches on the device, the loop) -> the metric
Evaluate = Callable[[nn.Module, Sequence[Batch], "Loop"], float]


@dataclass
class Loop:
    """A ``textlm.loop.Trainer`` (built by ``lossloop.case.build_loop``)."""

    model: nn.Module                      # DDP-wrapped on several ranks
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    device: torch.device
    dtype: str
    grad_clip_norm: float
    train_epoch: Callable[[int], Iterable[Batch]]   # epoch -> this rank's batches
    eval_set: Sequence[Batch]                       # this rank's share, on the host
    evaluator: Evaluate
    # the vendor's trainer adapter (training.driver.adapter): its grad scaler (None: the loop
    # scales nothing, its dtypes being fp32 and bf16) and calculate_loss(model, batch) -> the
    # batch's mean loss (None: the model's forward returns it)
    scaler: Any = None
    calculate_loss: Callable[..., Any] | None = None

    def batches(self, epoch: int) -> Iterator[Batch]:
        return (on_device(b, self.device) for b in self.train_epoch(epoch))

    def step(self, batch: Batch) -> tuple[torch.Tensor, bool]:
        return train_step(self, batch), True

    def work(self, batch: Batch) -> int:
        return int(batch[0].shape[0])

    def lr(self) -> float:
        return float(self.scheduler.get_last_lr()[0])

    def evaluate(self) -> float:
        net = unwrapped(self.model)
        net.eval()
        with torch.no_grad():
            value = self.evaluator(net, [on_device(b, self.device) for b in self.eval_set], self)
        net.train()
        return value


def on_device(batch: Batch, device: torch.device) -> Batch:
    return tuple(t.to(device, non_blocking=True) if isinstance(t, torch.Tensor) else t
                 for t in batch)


def unwrapped(model: nn.Module) -> nn.Module:
    return getattr(model, "module", model)


def autocast(loop: Loop) -> contextlib.AbstractContextManager:
    if loop.dtype not in AUTOCAST:
        return contextlib.nullcontext()
    return torch.autocast(device_type=loop.device.type, dtype=AUTOCAST[loop.dtype])


def train_step(loop: Loop, batch: Batch) -> torch.Tensor:
    """forward + backward + optimizer step; this rank's mean loss, unsynchronised (DDP
    averages the gradients of the ranks' equal batches: the global batch's mean)."""
    loop.optimizer.zero_grad(set_to_none=True)
    with autocast(loop):
        loss = loss_of(loop, loop.model, batch).float()
    backward_and_step(loss, loop.optimizer, loop.scheduler, loop.model.parameters(),
                      scaler=loop.scaler,
                      clip_grad_norm=loop.grad_clip_norm if loop.grad_clip_norm > 0 else None)
    return loss.detach()


def loss_of(loop: Loop, model: nn.Module, batch: Batch) -> torch.Tensor:
    """The batch's mean loss: the vendor adapter's calculate_loss, or the model's forward."""
    if loop.calculate_loss is None:
        return model(*batch)
    return hook_loss(loop.calculate_loss(model, batch), "calculate_loss")


def mean_loss(net: nn.Module, batches: Sequence[Batch], loop: Loop) -> float:
    """The model's loss per sample over every rank's eval share (the default metric)."""
    total = torch.zeros((), dtype=torch.float64, device=loop.device)
    count = 0
    for batch in batches:
        with autocast(loop):
            loss = loss_of(loop, net, batch).double()
        total, count = total + loss * int(batch[0].shape[0]), count + int(batch[0].shape[0])
    summed, seen = all_reduce_sum([float(total.item()), float(count)], loop.device)
    return summed / seen if seen else float("nan")
