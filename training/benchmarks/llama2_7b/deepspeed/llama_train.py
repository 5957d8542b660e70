"""The DeepSpeed training loop: micro-steps through the engine, eval loss, early stop."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np
import torch
import torch.distributed as tdist
from driver import Driver, Metric
from llama_model import causal_lm_loss


@dataclass
class Loop:
    """What the loop needs besides the driver (built by run_pretraining)."""

    engine: Any                                       # deepspeed.DeepSpeedEngine
    device: torch.device
    train_epoch: Callable[[int], Iterator[np.ndarray]]   # epoch -> this rank's micro-batches
    eval_set: list[np.ndarray]                        # this rank's share of the eval samples


@dataclass(frozen=True)
class Schedule:
    target: float
    max_steps: int
    eval_every: int


@dataclass
class Progress:
    epoch: int = 0
    step: int = 0                 # optimizer steps
    tokens: int = 0               # trained on this rank
    eval_loss: float = float("nan")


def all_reduce_sum(values: list[float], device: torch.device) -> list[float]:
    tensor = torch.tensor(values, dtype=torch.float64, device=device)
    if tdist.is_available() and tdist.is_initialized():
        tdist.all_reduce(tensor, op=tdist.ReduceOp.SUM)
    return tensor.tolist()


def split(tokens: np.ndarray, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """[batch, seq+1] tokens -> (inputs, next-token targets) on the device."""
    tensor = torch.from_numpy(tokens).to(device, non_blocking=True)
    return tensor[:, :-1], tensor[:, 1:]


def micro_step(loop: Loop, tokens: np.ndarray) -> tuple[torch.Tensor, bool]:
    """forward + backward (+ optimizer step at the accumulation boundary); returns the
    (unsynchronised) loss and whether an optimizer step was taken."""
    inputs, targets = split(tokens, loop.device)
    boundary = loop.engine.is_gradient_accumulation_boundary()
    loss = causal_lm_loss(loop.engine(inputs), targets)
    loop.engine.backward(loss)
    loop.engine.step()
    return loss.detach(), boundary


@torch.no_grad()
def evaluate(loop: Loop) -> float:
    """Mean next-token loss (nats/token) over the eval samples of all ranks."""
    loop.engine.eval()
    loss_sum, count = 0.0, 0.0
    for tokens in loop.eval_set:
        inputs, targets = split(tokens, loop.device)
        loss_sum += float(causal_lm_loss(loop.engine(inputs), targets)) * targets.numel()
        count += targets.numel()
    loop.engine.train()
    loss_sum, count = all_reduce_sum([loss_sum, count], loop.device)
    return loss_sum / count if count else float("nan")


def _evaluate_now(driver: Driver, loop: Loop, progress: Progress, schedule: Schedule) -> bool:
    with driver.evaluation():
        progress.eval_loss = evaluate(loop)
    metric = Metric("eval_loss", progress.eval_loss, schedule.target, higher_is_better=False)
    driver.evaluate(progress.epoch, metric, step=progress.step,
                    perplexity=math.exp(min(progress.eval_loss, 50.0)))
    return metric.reached()


def train_epoch(driver: Driver, loop: Loop, progress: Progress, schedule: Schedule) -> bool:
    """One pass over this rank's micro-batches; True once the target is reached or the
    optimizer steps run out."""
    for tokens in loop.train_epoch(progress.epoch):
        with driver.compute():
            loss, stepped = micro_step(loop, tokens)
        progress.tokens += tokens.shape[0] * (tokens.shape[1] - 1)
        if not stepped:
            continue
        progress.step += 1
        if progress.step % driver.log.step_every == 0:
            driver.step_end(progress.step, epoch=progress.epoch, loss=loss.item(),
                            lr=loop.engine.get_lr()[0])
        last = progress.step >= schedule.max_steps
        if (progress.step % schedule.eval_every == 0 or last) and \
                _evaluate_now(driver, loop, progress, schedule):
            return True
        if last:
            return True
    return False


def run(driver: Driver, loop: Loop, schedule: Schedule) -> Progress:
    """Train until the eval-loss target is reached or max_steps optimizer steps."""
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


def warmup_cosine(warmup: int, total: int, min_ratio: float) -> Callable[[int], float]:
    """LR factor: linear 0 -> 1 over ``warmup`` steps, cosine 1 -> min_ratio at ``total``."""
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        progress = min(1.0, (step - warmup) / max(1, total - warmup))
        return min_ratio + (1 - min_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))
    return factor
