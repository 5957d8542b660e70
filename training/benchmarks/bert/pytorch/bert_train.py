"""The PyTorch side of the MLM training loop: the optimizer step and the MLM-accuracy
evaluation; steps, eval cadence and early stop are ``textlm.loop``'s."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
import torch
from bert_model import mlm_correct, mlm_loss
from driver.torchdist import all_reduce_sum
from textlm.mlm import Batch
from torch import nn

AUTOCAST = {"bf16": torch.bfloat16}
Tensors = tuple[torch.Tensor, ...]   # input_ids, token_type_ids, attention_mask, labels


@dataclass
class Loop:
    """A ``textlm.loop.Trainer`` (built by run_pretraining)."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    device: torch.device
    dtype: str
    grad_clip_norm: float
    train_epoch: Callable[[int], Iterator[Batch]]   # epoch -> this rank's batches
    eval_set: list[Batch]                           # this rank's share, masked once

    def batches(self, epoch: int) -> Iterator[Tensors]:
        return (to_device(batch, self.device) for batch in self.train_epoch(epoch))

    def step(self, tensors: Tensors) -> tuple[torch.Tensor, bool]:
        return train_step(self, tensors), True

    def work(self, tensors: Tensors) -> int:
        return len(tensors[0])

    def lr(self) -> float:
        return self.scheduler.get_last_lr()[0]

    def evaluate(self) -> float:
        return evaluate(self)


def autocast(loop: Loop) -> contextlib.AbstractContextManager:
    if loop.dtype not in AUTOCAST:
        return contextlib.nullcontext()
    return torch.autocast(device_type=loop.device.type, dtype=AUTOCAST[loop.dtype])


def to_device(batch: Batch, device: torch.device) -> Tensors:
    """input_ids, token_type_ids, attention_mask, labels as tensors on ``device``."""
    return tuple(torch.from_numpy(np.ascontiguousarray(a)).to(device, non_blocking=True)
                 for a in (batch.input_ids, batch.token_type_ids, batch.attention_mask,
                           batch.labels))


def forward(loop: Loop, tensors: Tensors) -> torch.Tensor:
    with autocast(loop):
        return loop.model(*tensors[:3])


def train_step(loop: Loop, tensors: Tensors) -> torch.Tensor:
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
