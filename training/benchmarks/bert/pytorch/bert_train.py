"""The MLM training loop: timed compute regions, MLM-accuracy evaluation, early stop."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
import torch
import torch.distributed as tdist
from bert_data import Batch
from bert_model import mlm_correct, mlm_loss
from driver import Driver, Metric
from torch import nn

AUTOCAST = {"bf16": torch.bfloat16}


@dataclass
class Loop:
    """What the loop needs besides the driver (built by run_pretraining)."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    device: torch.device
    dtype: str
    grad_clip_norm: float
    train_epoch: Callable[[int], Iterator[Batch]]   # epoch -> this rank's batches
    eval_set: list[Batch]                           # this rank's share, masked once


@dataclass
class Progress:
    epoch: int = 0
    step: int = 0
    samples: int = 0                      # trained on this rank
    accuracy: float = float("nan")


def all_reduce_sum(values: list[float], device: torch.device) -> list[float]:
    tensor = torch.tensor(values, dtype=torch.float64, device=device)
    if tdist.is_available() and tdist.is_initialized():
        tdist.all_reduce(tensor, op=tdist.ReduceOp.SUM)
    return tensor.tolist()


def autocast(loop: Loop) -> contextlib.AbstractContextManager:
    if loop.dtype not in AUTOCAST:
        return contextlib.nullcontext()
    return torch.autocast(device_type=loop.device.type, dtype=AUTOCAST[loop.dtype])


def to_device(batch: Batch, device: torch.device) -> tuple[torch.Tensor, ...]:
    """input_ids, token_type_ids, attention_mask, labels as tensors on ``device``."""
    return tuple(torch.from_numpy(np.ascontiguousarray(a)).to(device, non_blocking=True)
                 for a in (batch.input_ids, batch.token_type_ids, batch.attention_mask,
                           batch.labels))


def forward(loop: Loop, tensors: tuple[torch.Tensor, ...]) -> torch.Tensor:
    with autocast(loop):
        return loop.model(*tensors[:3])


def train_step(loop: Loop, tensors: tuple[torch.Tensor, ...]) -> torch.Tensor:
    """forward + backward + optimizer step; returns the (unsynchronised) loss."""
    loop.optimizer.zero_grad(set_to_none=True)
    loss = mlm_loss(forward(loop, tensors), tensors[3])
    loss.backward()
    if loop.grad_clip_norm > 0:
        torch.nn.utils.clip_grad_norm_(loop.model.parameters(), loop.grad_clip_norm)
    loop.optimizer.step()
    loop.scheduler.step()
    return loss.detach()


@torch.no_grad()
def evaluate(loop: Loop) -> float:
    """MLM accuracy over the eval rows (each rank holds a disjoint share, so ranks may run
    different numbers of batches: the forward goes around the DDP wrapper)."""
    net = getattr(loop.model, "module", loop.model)
    net.eval()
    correct, total = 0.0, 0.0
    for batch in loop.eval_set:
        tensors = to_device(batch, loop.device)
        with autocast(loop):
            logits = net(*tensors[:3])
        right, chosen = mlm_correct(logits, tensors[3])
        correct, total = correct + right, total + chosen
    net.train()
    correct, total = all_reduce_sum([correct, total], loop.device)
    return correct / total if total else float("nan")


@dataclass(frozen=True)
class Schedule:
    target: float
    max_steps: int
    eval_every: int


def _evaluate_now(driver: Driver, loop: Loop, progress: Progress, schedule: Schedule) -> bool:
    """Evaluate, report, and say whether the target is reached."""
    with driver.evaluation():
        progress.accuracy = evaluate(loop)
    metric = Metric("mlm_accuracy", progress.accuracy, schedule.target)
    driver.evaluate(progress.epoch, metric, step=progress.step)
    return metric.reached()


def train_epoch(driver: Driver, loop: Loop, progress: Progress, schedule: Schedule) -> bool:
    """One pass over this rank's batches; True once the target is reached or steps run out."""
    for batch in loop.train_epoch(progress.epoch):
        tensors = to_device(batch, loop.device)
        with driver.compute():
            loss = train_step(loop, tensors)
        progress.step += 1
        progress.samples += len(batch.input_ids)
        if progress.step % driver.log.step_every == 0:
            driver.step_end(progress.step, epoch=progress.epoch, loss=loss.item(),
                            lr=loop.scheduler.get_last_lr()[0])
        last = progress.step >= schedule.max_steps
        if (progress.step % schedule.eval_every == 0 or last) and \
                _evaluate_now(driver, loop, progress, schedule):
            return True
        if last:
            return True
    return False


def run(driver: Driver, loop: Loop, schedule: Schedule) -> Progress:
    """Train until the MLM-accuracy target is reached or max_steps optimizer steps."""
    progress = Progress()
    driver.train_start(global_batch_size=driver.config.global_batch_size)
    done = False
    while not done:
        progress.epoch += 1
        driver.epoch_begin(progress.epoch)
        done = train_epoch(driver, loop, progress, schedule)
        driver.epoch_end(progress.epoch, step=progress.step)
    driver.train_end(epochs=progress.epoch, steps=progress.step)
    return progress


def linear_warmup_decay(warmup: int, total: int) -> Callable[[int], float]:
    """LR factor: linear 0 -> 1 over ``warmup`` steps, then linear 1 -> 0 at ``total``."""
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total - step) / max(1, total - warmup))
    return factor

