"""The image-classification training loop: timed compute regions, per-epoch top-1
evaluation, early stop (every case built on ``imagecls.case``)."""

from __future__ import annotations

import contextlib
import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch import nn

from chipperf_runtime.training.driver import Diverged, Driver, Metric
from chipperf_runtime.training.driver.torchdist import all_reduce_sum

AUTOCAST = {"bf16": torch.bfloat16, "fp16": torch.float16}


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
    steps: int = 0                        # optimizer steps so far (the backward hook's step)


@dataclass
class Progress:
    epoch: int = 0
    step: int = 0
    samples: int = 0                      # trained on this rank
    accuracy: float = float("nan")
    history: list[float] = field(default_factory=list)


def autocast(loop: Loop) -> contextlib.AbstractContextManager:
    if loop.dtype not in AUTOCAST:
        return contextlib.nullcontext()
    return torch.autocast(device_type=loop.device.type, dtype=AUTOCAST[loop.dtype])


def to_device(loop: Loop, images: torch.Tensor, labels: torch.Tensor):
    images = images.to(loop.device, non_blocking=True)
    if loop.channels_last:
        images = images.contiguous(memory_format=torch.channels_last)
    return images, labels.to(loop.device, non_blocking=True)


def train_step(loop: Loop, images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """forward + backward + optimizer step; returns the (unsynchronised) loss."""
    loop.optimizer.zero_grad(set_to_none=True)
    with autocast(loop):
        loss = loop.criterion(loop.model(images), labels)
    loop.steps += 1
    if loop.backward is not None:
        loop.backward(loop.steps, loss, loop.optimizer, loop.scaler)
    elif loop.scaler is not None:
        loop.scaler.scale(loss).backward()
        clip(loop, unscale=True)
        loop.scaler.step(loop.optimizer)
        loop.scaler.update()
    else:
        loss.backward()
        clip(loop)
        loop.optimizer.step()
    loop.scheduler.step()
    return loss.detach()


def clip(loop: Loop, unscale: bool = False) -> None:
    if loop.clip_grad_norm is None:
        return
    if unscale:
        loop.scaler.unscale_(loop.optimizer)
    nn.utils.clip_grad_norm_(loop.model.parameters(), loop.clip_grad_norm)


def logged_loss(loss: torch.Tensor, step: int) -> float:
    """The loss as a number; a non-finite one ends the case (``Diverged``) naming the step."""
    value = float(loss.item())
    if not math.isfinite(value):
        raise Diverged(f"training diverged: loss is {value} at step {step}")
    return value


@torch.no_grad()
def evaluate(loop: Loop) -> float:
    """Top-1 accuracy on the whole val split (each rank holds a disjoint shard)."""
    loop.model.eval()
    correct = torch.zeros((), dtype=torch.int64, device=loop.device)
    total = 0
    for images, labels in loop.val_loader:
        images, labels = to_device(loop, images, labels)
        with autocast(loop):
            logits = loop.model(images)
        correct += (logits.argmax(dim=1) == labels).sum()  # stays on the device: no sync
        total += labels.numel()
    loop.model.train()
    right, seen = all_reduce_sum([float(correct.item()), float(total)], loop.device)
    return right / seen if seen else float("nan")


def train_epoch(driver: Driver, loop: Loop, progress: Progress, max_steps: int | None) -> None:
    """One pass over this rank's shard of train, or up to max_steps optimizer steps."""
    every = driver.log.step_every
    for images, labels in loop.train_loader:
        images, labels = to_device(loop, images, labels)
        with driver.compute():
            loss = train_step(loop, images, labels)
        progress.step += 1
        progress.samples += labels.numel()
        if progress.step % every == 0:
            driver.step_end(progress.step, work=progress.samples, epoch=progress.epoch,
                            loss=logged_loss(loss, progress.step),
                            lr=loop.scheduler.get_last_lr()[0])
        if driver.step_done(progress.step, progress.samples):
            return
        if max_steps is not None and progress.step >= max_steps:
            return


def run(driver: Driver, loop: Loop, target: float, max_epochs: int, eval_every: int,
        max_steps: int | None, on_epoch: Callable[[int], None]) -> Progress:
    """Train until the target top-1 is reached, max_epochs, or max_steps; in performance
    mode (driver.run_mode) for its warm-up + timed steps, without evaluation."""
    progress = Progress()
    performance = driver.run_mode.performance
    max_steps = driver.stop_after(max_steps)
    driver.train_start(global_batch_size=driver.config.global_batch_size, work_unit="samples")
    epochs = itertools.count(1) if performance else range(1, max_epochs + 1)  # steps decide
    for epoch in epochs:
        progress.epoch = epoch
        on_epoch(epoch)
        driver.epoch_begin(epoch)
        train_epoch(driver, loop, progress, max_steps)
        out_of_steps = max_steps is not None and progress.step >= max_steps
        if not performance and (epoch % eval_every == 0 or epoch == max_epochs or out_of_steps):
            with driver.evaluation():
                progress.accuracy = evaluate(loop)
            progress.history.append(progress.accuracy)
            driver.evaluate(epoch, Metric("top1", progress.accuracy, target), step=progress.step)
        driver.epoch_end(epoch, step=progress.step)
        if out_of_steps or (not math.isnan(progress.accuracy) and progress.accuracy >= target):
            break
    driver.train_end(epochs=progress.epoch, steps=progress.step)
    return progress
