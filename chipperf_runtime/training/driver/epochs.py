"""The epoch loop of the epoch-based training cases (image classification, detection), once:
train over this rank's shard epoch by epoch in timed compute regions, STEP_END every
``log_every_steps``, evaluate every ``eval_every`` epochs (and after the last), stop when the
target is reached, at max_epochs or at max_steps; in performance mode (driver.run_mode) for its
warm-up + timed steps, without evaluation.

What differs between cases is an ``EpochTask``: its batches, one training step, its evaluation
and its target. Imports no framework.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from chipperf_runtime.training.driver.case import Driver
from chipperf_runtime.training.driver.finished import Metric


@dataclass
class Steps:
    epoch: int = 0
    step: int = 0
    samples: int = 0                   # trained on this rank


class EpochTask(Protocol):
    def batches(self) -> Iterable[Any]:
        """This rank's training batches for one epoch, on the device."""

    def train(self, batch: Any, step: int) -> tuple[int, Callable[[], float]]:
        """One optimizer step (numbered ``step``): the samples it trained and its loss, read
        only when logged (reading may synchronise the device)."""

    def lr(self) -> float:
        """The learning rate now."""

    def evaluate(self) -> tuple[Metric, dict[str, Any]]:
        """Score the model: the headline metric and what else EVALUATE carries."""

    def reached(self) -> bool:
        """Whether the last evaluation reached the target."""


def train_epoch(driver: Driver, task: EpochTask, steps: Steps, max_steps: int | None) -> None:
    """One pass over this rank's shard of train, or up to max_steps optimizer steps."""
    every = driver.log.step_every
    for batch in task.batches():
        with driver.compute():
            samples, loss = task.train(batch, steps.step + 1)
        steps.step += 1
        steps.samples += samples
        if steps.step % every == 0:
            driver.step_end(steps.step, work=steps.samples, epoch=steps.epoch, loss=loss(),
                            lr=task.lr())
        if driver.step_done(steps.step, steps.samples):
            return
        if max_steps is not None and steps.step >= max_steps:
            return


def run_epochs(driver: Driver, task: EpochTask, steps: Steps, *, max_epochs: int,
               eval_every: int, max_steps: int | None, on_epoch: Callable[[int], None]) -> None:
    """Train until the task reaches its target, max_epochs or max_steps (TRAIN_START ..
    TRAIN_END); ``on_epoch(epoch)`` before each epoch (a sampler's shuffle)."""
    performance = driver.run_mode.performance
    max_steps = driver.stop_after(max_steps)
    driver.train_start(global_batch_size=driver.config.global_batch_size, work_unit="samples")
    epochs = itertools.count(1) if performance else range(1, max_epochs + 1)  # steps decide
    for epoch in epochs:
        steps.epoch = epoch
        on_epoch(epoch)
        driver.epoch_begin(epoch)
        train_epoch(driver, task, steps, max_steps)
        out_of_steps = max_steps is not None and steps.step >= max_steps
        if not performance and (epoch % eval_every == 0 or epoch == max_epochs or out_of_steps):
            with driver.evaluation():
                metric, extra = task.evaluate()
            driver.evaluate(epoch, metric, step=steps.step, **extra)
        driver.epoch_end(epoch, step=steps.step)
        if out_of_steps or task.reached():
            break
    driver.train_end(epochs=steps.epoch, steps=steps.step)
