"""The Paddle dygraph side of the MLM training loop: the optimizer step (with loss scaling for
fp16) and the MLM-accuracy evaluation; steps, eval cadence and early stop are
``textlm.loop``'s."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Callable, Iterator, Literal

import paddle
import paddle.distributed as pdist
from model import mlm_correct, mlm_loss

from chipperf_runtime.training.textlm.mlm import Batch

AMP: dict[str, Literal["bfloat16", "float16"]] = {"bf16": "bfloat16", "fp16": "float16"}
Tensors = tuple[paddle.Tensor, ...]   # input_ids, token_type_ids, attention_mask, labels


@dataclass
class Loop:
    """A ``textlm.loop.Trainer`` (built by run_pretraining)."""

    model: paddle.nn.Layer                          # DataParallel-wrapped when distributed
    optimizer: paddle.optimizer.Optimizer
    scheduler: paddle.optimizer.lr.LRScheduler
    dtype: str
    train_epoch: Callable[[int], Iterator[Batch]]   # epoch -> this rank's batches
    eval_set: list[Batch]                           # this rank's share, masked once
    scaler: paddle.amp.GradScaler | None = None     # fp16 only

    def batches(self, epoch: int) -> Iterator[Tensors]:
        return (to_tensors(batch) for batch in self.train_epoch(epoch))

    def step(self, tensors: Tensors) -> tuple[paddle.Tensor, bool]:
        return train_step(self, tensors), True

    def work(self, tensors: Tensors) -> int:
        return len(tensors[0])

    def lr(self) -> float:
        return self.optimizer.get_lr()

    def evaluate(self) -> float:
        return evaluate(self)


def all_reduce_sum(values: list[float]) -> list[float]:
    tensor = paddle.to_tensor(values, dtype="float64")
    if pdist.is_initialized() and pdist.get_world_size() > 1:
        pdist.all_reduce(tensor, op=pdist.ReduceOp.SUM)
    return [float(v) for v in tensor.numpy()]


def autocast(loop: Loop) -> contextlib.AbstractContextManager:
    if loop.dtype not in AMP:
        return contextlib.nullcontext()
    return paddle.amp.auto_cast(level="O1", dtype=AMP[loop.dtype])


def to_tensors(batch: Batch) -> Tensors:
    """input_ids, token_type_ids, attention_mask, labels on the current device."""
    return tuple(paddle.to_tensor(a, dtype="int64") for a in (
        batch.input_ids, batch.token_type_ids, batch.attention_mask, batch.labels))


def forward(loop: Loop, tensors: Tensors) -> paddle.Tensor:
    with autocast(loop):
        return loop.model(*tensors[:3])


def train_step(loop: Loop, tensors: Tensors) -> paddle.Tensor:
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
