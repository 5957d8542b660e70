"""The text cases' training schedule, framework-free: optimizer steps until the quality target
is reached or ``max_steps`` run out, an evaluation every ``eval_every`` steps and at the last
one, STEP_END every ``log_every_steps`` (a non-finite loss there ends the case as
``Diverged``, naming the step), the compute and evaluation regions timed.

A case supplies a ``Trainer`` (its framework's forward/backward/step and evaluation) and a
``Goal``; ``run`` does the bookkeeping and returns the ``Progress`` FINISHED is built from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Protocol

from chipperf_runtime.training.driver import Diverged, Driver, Metric


@dataclass(frozen=True)
class Goal:
    """What "converged" means: the evaluated metric, its target and its direction; ``details``
    adds fields to each EVALUATE event (e.g. perplexity from a loss)."""

    name: str
    target: float
    higher_is_better: bool = True
    details: Callable[[float], Mapping[str, Any]] = field(default=lambda value: {})

    def metric(self, value: float) -> Metric:
        return Metric(self.name, value, self.target, higher_is_better=self.higher_is_better)


@dataclass(frozen=True)
class Schedule:
    goal: Goal
    max_steps: int
    eval_every: int
    work_unit: str | None = None   # "samples" or "tokens": named in TRAIN_START and STEP_END
    global_batch_size: int | None = None   # for TRAIN_START (None: the config's)


@dataclass
class Progress:
    epoch: int = 0
    step: int = 0                 # optimizer steps
    work: int = 0                 # samples or tokens trained on this rank
    value: float = float("nan")   # the goal's metric at the last evaluation


class Trainer(Protocol):
    """The framework's side of the loop."""

    def batches(self, epoch: int) -> Iterable[Any]:
        """This rank's (micro-)batches of one epoch, ready for ``step`` (iterated outside the
        timed compute region)."""

    def step(self, batch: Any) -> tuple[Any, bool]:
        """forward + backward (+ optimizer step): the unsynchronised loss and whether an
        optimizer step was taken (False while gradients accumulate)."""

    def work(self, batch: Any) -> int:
        """Samples or tokens ``batch`` trains on."""

    def lr(self) -> float:
        """The learning rate of the last optimizer step."""

    def evaluate(self) -> float:
        """The goal's metric over every rank's share of the eval set."""


def run(driver: Driver, trainer: Trainer, schedule: Schedule) -> Progress:
    """Train until the goal is reached or ``max_steps`` optimizer steps; in performance mode
    (driver.run_mode) for its warm-up + timed steps, without evaluation (step_done stops it)."""
    progress = Progress()
    unit = {} if schedule.work_unit is None else {"work_unit": schedule.work_unit}
    batch = driver.config.global_batch_size if schedule.global_batch_size is None \
        else schedule.global_batch_size
    driver.train_start(global_batch_size=batch, **unit)
    done = False
    while not done:
        progress.epoch += 1
        driver.epoch_begin(progress.epoch)
        done = train_epoch(driver, trainer, progress, schedule)
        driver.epoch_end(progress.epoch, step=progress.step)
    driver.train_end(epochs=progress.epoch, steps=progress.step)
    return progress


def train_epoch(driver: Driver, trainer: Trainer, progress: Progress,
                schedule: Schedule) -> bool:
    """One pass over this rank's batches; True once the goal is reached or steps run out."""
    for batch in trainer.batches(progress.epoch):
        with driver.compute():
            loss, stepped = trainer.step(batch)
        progress.work += trainer.work(batch)
        if not stepped:
            continue
        progress.step += 1
        if progress.step % driver.log.step_every == 0:
            driver.step_end(progress.step, work=progress.work, epoch=progress.epoch,
                            loss=finite_loss(loss, progress.step), lr=trainer.lr())
        if driver.step_done(progress.step, progress.work):   # performance mode: no evaluation
            return True
        last = progress.step >= schedule.max_steps
        evaluating = not driver.run_mode.performance and \
            (progress.step % schedule.eval_every == 0 or last)
        if evaluating and evaluate_now(driver, trainer, progress, schedule.goal):
            return True
        if last:
            return True
    return False


def finite_loss(loss: Any, step: int) -> float:
    """The loss as a number; a non-finite one ends the case (``Diverged``) naming the step."""
    value = float(loss)
    if not math.isfinite(value):
        raise Diverged(f"training diverged: loss is {value} at step {step}")
    return value


def evaluate_now(driver: Driver, trainer: Trainer, progress: Progress, goal: Goal) -> bool:
    """Evaluate, report, and say whether the goal is reached."""
    with driver.evaluation():
        progress.value = trainer.evaluate()
    metric = goal.metric(progress.value)
    driver.evaluate(progress.epoch, metric, step=progress.step, **goal.details(progress.value))
    return metric.reached()


# ---------------------------------------------------------------- learning-rate factors


def linear_warmup_decay(warmup: int, total: int) -> Callable[[int], float]:
    """LR factor: linear 0 -> 1 over ``warmup`` steps, then linear 1 -> 0 at ``total``."""
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total - step) / max(1, total - warmup))
    return factor


def warmup_cosine(warmup: int, total: int, min_ratio: float) -> Callable[[int], float]:
    """LR factor: linear 0 -> 1 over ``warmup`` steps, cosine 1 -> min_ratio at ``total``."""
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        progress = min(1.0, (step - warmup) / max(1, total - warmup))
        return min_ratio + (1 - min_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))
    return factor
