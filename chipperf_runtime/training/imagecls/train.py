"""The image-classification training loop: timed compute regions, per-epoch top-1
evaluation, early stop (every case built on ``imagecls.case``; the epoch loop itself:
``driver.epochs``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from chipperf_runtime.training.driver import Driver, Metric
from chipperf_runtime.training.driver.epochs import Steps, run_epochs
from chipperf_runtime.training.driver.torchdist import all_reduce_sum
from chipperf_runtime.training.driver.torchstep import (
    autocast,
    backward_and_step,
    finite_loss,
    hook_loss,
)
from chipperf_runtime.training.driver.torchxla import Boundary, no_boundary


@dataclass
class Loop:
    """What the loop needs besides the driver (built by ``imagecls.case.build_loop``)."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    criterion: nn.Module
    train_loader: torch.utils.data.DataLoader
    val_loader: torch.utils.data.DataLoader
    device: torch.device
    dtype: str
    channels_last: bool
    scaler: Any = None  # torch.amp.GradScaler for fp16
    clip_grad_norm: float | None = None   # clip the gradients' global norm to this
    # the vendor adapter's backward(step, loss, optimizer, scaler): backward + optimizer step
    backward: Callable[..., Any] | None = None
    # the vendor adapter's train_step(model, batch, optimizer, scaler) -> loss: the whole step
    whole_step: Callable[..., Any] | None = None
    steps: int = 0                        # optimizer steps so far (the backward hook's step)
    # where a step or an evaluation batch ends (driver.torchxla): an XLA device cuts its graph
    # there and checks that no op ran outside XLA; nothing on an eager device
    boundary: Boundary = no_boundary


@dataclass
class Progress(Steps):
    accuracy: float = float("nan")
    history: list[float] = field(default_factory=list)


def to_device(loop: Loop, images: torch.Tensor, labels: torch.Tensor):
    images = images.to(loop.device, non_blocking=True)
    if loop.channels_last:
        images = images.contiguous(memory_format=torch.channels_last)
    return images, labels.to(loop.device, non_blocking=True)


def train_step(loop: Loop, images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """forward + backward + optimizer step; returns the (unsynchronised) loss."""
    loop.optimizer.zero_grad(set_to_none=True)
    if loop.whole_step is not None:
        loop.steps += 1
        loss = hook_loss(loop.whole_step(loop.model, (images, labels), loop.optimizer,
                                         loop.scaler), "train_step")
        loop.scheduler.step()
        loop.boundary(f"in training step {loop.steps}")
        return loss.detach()
    with autocast(loop.device, loop.dtype):
        loss = loop.criterion(loop.model(images), labels)
    loop.steps += 1
    if loop.backward is not None:
        loop.backward(loop.steps, loss, loop.optimizer, loop.scaler)
        loop.scheduler.step()
    else:
        backward_and_step(loss, loop.optimizer, loop.scheduler, loop.model.parameters(),
                          scaler=loop.scaler, clip_grad_norm=loop.clip_grad_norm)
    loop.boundary(f"in training step {loop.steps}")
    return loss.detach()


@torch.no_grad()
def evaluate(loop: Loop) -> float:
    """Top-1 accuracy on the whole val split (each rank holds a disjoint shard)."""
    loop.model.eval()
    correct = torch.zeros((), dtype=torch.int64, device=loop.device)
    total = 0
    for images, labels in loop.val_loader:
        images, labels = to_device(loop, images, labels)
        with autocast(loop.device, loop.dtype):
            logits = loop.model(images)
        correct += (logits.argmax(dim=1) == labels).sum()  # stays on the device: no sync
        total += labels.numel()
        loop.boundary("in evaluation")
    loop.model.train()
    right, seen = all_reduce_sum([float(correct.item()), float(total)], loop.device)
    return right / seen if seen else float("nan")


@dataclass
class Classifying:
    """The epoch task of a classifier: the loss is read (a device sync) only when logged."""

    loop: Loop
    target: float
    progress: Progress

    def batches(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        return (to_device(self.loop, images, labels) for images, labels in self.loop.train_loader)

    def train(self, batch: tuple[torch.Tensor, torch.Tensor],
              step: int) -> tuple[int, Callable[[], float]]:
        images, labels = batch
        loss = train_step(self.loop, images, labels)
        return labels.numel(), lambda: finite_loss(loss, step)

    def lr(self) -> float:
        return float(self.loop.scheduler.get_last_lr()[0])

    def evaluate(self) -> tuple[Metric, dict[str, Any]]:
        self.progress.accuracy = evaluate(self.loop)
        self.progress.history.append(self.progress.accuracy)
        return Metric("top1", self.progress.accuracy, self.target), {}

    def reached(self) -> bool:
        return not math.isnan(self.progress.accuracy) and self.progress.accuracy >= self.target


def run(driver: Driver, loop: Loop, target: float, max_epochs: int, eval_every: int,
        max_steps: int | None, on_epoch: Callable[[int], None]) -> Progress:
    """Train until the target top-1 is reached, max_epochs, or max_steps; in performance
    mode (driver.run_mode) for its warm-up + timed steps, without evaluation."""
    progress = Progress()
    run_epochs(driver, Classifying(loop, target, progress), progress, max_epochs=max_epochs,
               eval_every=eval_every, max_steps=max_steps, on_epoch=on_epoch)
    return progress
