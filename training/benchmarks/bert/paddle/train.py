"""The MLM training loop in Paddle dygraph: timed compute regions, MLM-accuracy evaluation
every ``eval_every_steps``, early stop at the target."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Callable, Iterator, Literal

import paddle
import paddle.distributed as pdist
from data import Batch
from driver import Driver, Metric
from model import mlm_correct, mlm_loss

AMP: dict[str, Literal["bfloat16", "float16"]] = {"bf16": "bfloat16", "fp16": "float16"}


@dataclass
class Loop:
    """What the loop needs besides the driver (built by run_pretraining)."""

    model: paddle.nn.Layer                          # DataParallel-wrapped when distributed
    optimizer: paddle.optimizer.Optimizer
    scheduler: paddle.optimizer.lr.LRScheduler
    dtype: str
    train_epoch: Callable[[int], Iterator[Batch]]   # epoch -> this rank's batches
    eval_set: list[Batch]                           # this rank's share, masked once
    scaler: paddle.amp.GradScaler | None = None     # fp16 only


@dataclass
class Progress:
    epoch: int = 0
    step: int = 0
    samples: int = 0                      # trained on this rank
    accuracy: float = float("nan")


@dataclass(frozen=True)
class Schedule:
    target: float
    max_steps: int
    eval_every: int


def all_reduce_sum(values: list[float]) -> list[float]:
    tensor = paddle.to_tensor(values, dtype="float64")
    if pdist.is_initialized() and pdist.get_world_size() > 1:
        pdist.all_reduce(tensor, op=pdist.ReduceOp.SUM)
    return [float(v) for v in tensor.numpy()]


def autocast(loop: Loop) -> contextlib.AbstractContextManager:
    if loop.dtype not in AMP:
        return contextlib.nullcontext()
    return paddle.amp.auto_cast(level="O1", dtype=AMP[loop.dtype])


def to_tensors(batch: Batch) -> tuple[paddle.Tensor, ...]:
    """input_ids, token_type_ids, attention_mask, labels on the current device."""
    return tuple(paddle.to_tensor(a, dtype="int64") for a in (
        batch.input_ids, batch.token_type_ids, batch.attention_mask, batch.labels))


def forward(loop: Loop, tensors: tuple[paddle.Tensor, ...]) -> paddle.Tensor:
    with autocast(loop):
        return loop.model(*tensors[:3])


def train_step(loop: Loop, tensors: tuple[paddle.Tensor, ...]) -> paddle.Tensor:
    """forward + backward (DataParallel averages the gradients) + optimizer step."""
    loss = mlm_loss(forward(loop, tensors), tensors[3])
    if loop.scaler is not None:
        loop.scaler.scale(loss).backward()
        loop.scaler.step(loop.optimizer)
        loop.scaler.update()
    else:
        loss.backward()
        loop.optimizer.step()
    loop.optimizer.clear_grad(set_to_zero=False)
    loop.scheduler.step()
    return loss.detach()


@paddle.no_grad()
def evaluate(loop: Loop) -> float:
    """MLM accuracy over the eval rows (each rank holds a disjoint share)."""
    loop.model.eval()
    correct, total = 0.0, 0.0
    for batch in loop.eval_set:
        tensors = to_tensors(batch)
        right, chosen = mlm_correct(forward(loop, tensors), tensors[3])
        correct, total = correct + right, total + chosen
    loop.model.train()
    correct, total = all_reduce_sum([correct, total])
    return correct / total if total else float("nan")


def evaluate_now(driver: Driver, loop: Loop, progress: Progress, schedule: Schedule) -> bool:
    """Evaluate, report, and say whether the target is reached."""
    with driver.evaluation():
        progress.accuracy = evaluate(loop)
    metric = Metric("mlm_accuracy", progress.accuracy, schedule.target)
    driver.evaluate(progress.epoch, metric, step=progress.step)
    return metric.reached()


def train_epoch(driver: Driver, loop: Loop, progress: Progress, schedule: Schedule) -> bool:
    """One pass over this rank's batches; True once the target is reached or steps run out."""
    for batch in loop.train_epoch(progress.epoch):
        tensors = to_tensors(batch)
        with driver.compute():
            loss = train_step(loop, tensors)
        progress.step += 1
        progress.samples += len(batch.input_ids)
        if progress.step % driver.log.step_every == 0:
            driver.step_end(progress.step, epoch=progress.epoch, loss=float(loss),
                            lr=loop.optimizer.get_lr())
        last = progress.step >= schedule.max_steps
        if (progress.step % schedule.eval_every == 0 or last) and \
                evaluate_now(driver, loop, progress, schedule):
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
