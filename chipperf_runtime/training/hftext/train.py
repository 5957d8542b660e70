"""The PyTorch side of the text cases' loop (a ``textlm.loop.Trainer``): the optimizer step
and the token-accuracy evaluation; steps, eval cadence and early stop are ``textlm.loop``'s."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import torch
import torch.nn.functional as F
from torch import nn

from chipperf_runtime.training.driver.torchdist import all_reduce_sum
from chipperf_runtime.training.driver.torchstep import clip_and_step, hook_loss, scaled_backward
from chipperf_runtime.training.hftext.tasks import IGNORE, Scorer, Task, Tensors, token_correct  # noqa: F401 - re-exported

AUTOCAST = {"bf16": torch.bfloat16, "fp16": torch.float16}


@dataclass
class Loop:
    """A ``textlm.loop.Trainer`` (built by ``hftext.case.build_loop``)."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    device: torch.device
    dtype: str
    grad_clip_norm: float
    task: Task
    train_epoch: Callable[[int], Iterator[Any]]     # epoch -> this rank's batches
    eval_set: list[Any]                             # this rank's share of the eval split
    scorer: Scorer                                  # the task's metric of one eval batch
    score_width: int = 2                            # numbers the scorer returns per batch
    combine: Callable[[list[float]], float] = lambda sums: ratio(sums)   # all ranks' sums -> metric
    label_smoothing: float = 0.0                    # of the training loss (fairseq's criterion)
    loss: Callable[..., torch.Tensor] | None = None  # token_loss compiled (hftext.case); None: as is
    mark_step: Callable[[], None] | None = None     # a lazy-mode graph break (intel_gaudi); None: eager
    grads_to_none: bool = True                      # zero_grad(set_to_none=...); False under
                                                    # intel_gaudi's training HPU graphs
    # net -> a context the evaluation pass runs in (intel_gaudi: its HPU-graphed forward)
    eval_forward: Callable[[nn.Module], contextlib.AbstractContextManager] | None = None
    engine: Any = None                              # a DeepSpeed ZeRO engine (hftext.zero); None: DDP
    # the grad scaler (hftext.case.grad_scaler: torch.amp.GradScaler for fp16, None for fp32
    # and bf16, or the vendor adapter's create_grad_scaler) and the vendor's trainer adapter's
    # (training.driver.adapter) backward(step, loss, optimizer, scaler),
    # update_model_params(loss, optimizer, scaler) and train_one_step(model, batch, optimizer,
    # step, scaler); None: the loop's own step
    scaler: Any = None
    backward: Callable[..., Any] | None = None
    update: Callable[..., Any] | None = None
    whole_step: Callable[..., Any] | None = None
    steps: int = 0                                  # optimizer steps so far (the hooks' step)

    def batches(self, epoch: int) -> Iterator[Tensors]:
        return (self.task.tensors(batch, self.device) for batch in self.train_epoch(epoch))

    def step(self, batch: Tensors) -> tuple[torch.Tensor, bool]:
        return train_step(self, batch), True

    def work(self, batch: Tensors) -> int:
        return self.task.work(batch)

    def lr(self) -> float:
        return float(self.scheduler.get_last_lr()[0])

    def evaluate(self) -> float:
        return evaluate(self)


def autocast(loop: Loop) -> contextlib.AbstractContextManager:
    if loop.dtype not in AUTOCAST:
        return contextlib.nullcontext()
    return torch.autocast(device_type=loop.device.type, dtype=AUTOCAST[loop.dtype])


def logits_of(model: nn.Module, loop: Loop, batch: Tensors) -> torch.Tensor:
    with autocast(loop):
        return model(**batch.inputs).logits


def token_loss(logits: torch.Tensor, labels: torch.Tensor, smoothing: float = 0.0) -> torch.Tensor:
    """Mean cross entropy over the labelled positions (label -100 elsewhere), in fp32."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), labels.reshape(-1),
                           ignore_index=IGNORE, label_smoothing=smoothing)


def train_step(loop: Loop, batch: Tensors) -> torch.Tensor:
    """forward + backward + optimizer step; returns the (unsynchronised) loss."""
    if loop.engine is not None:
        return zero_step(loop, batch)
    loop.optimizer.zero_grad(set_to_none=loop.grads_to_none)
    loop.steps += 1
    if loop.whole_step is not None:      # the vendor's train_one_step: forward to optimizer step
        loss = hook_loss(loop.whole_step(loop.model, batch, loop.optimizer, loop.steps,
                                         loop.scaler), "train_one_step")
    else:
        loss = (loop.loss or token_loss)(logits_of(loop.model, loop, batch), batch.labels,
                                         loop.label_smoothing)
        backward_and_update(loop, loss)
    graph_break(loop)
    loop.scheduler.step()
    return loss.detach()


def backward_and_update(loop: Loop, loss: torch.Tensor) -> None:
    """The vendor's backward (backward, clipping, optimizer step), or the loop's backward
    (through the scaler when there is one) then the vendor's update_model_params or the loop's
    clipping and optimizer step."""
    if loop.backward is not None:
        loop.backward(loop.steps, loss, loop.optimizer, loop.scaler)
        return
    scaled_backward(loss, loop.scaler)
    graph_break(loop)
    if loop.update is not None:
        loop.update(loss, loop.optimizer, loop.scaler)
        return
    clip_and_step(loop.optimizer, loop.model.parameters(), loop.scaler,
                  loop.grad_clip_norm if loop.grad_clip_norm > 0 else None)


def zero_step(loop: Loop, batch: Tensors) -> torch.Tensor:
    """The same step through DeepSpeed's engine: its backward (gradients reduced and
    partitioned by ZeRO stage), then its step (clipping, optimizer, the schedule)."""
    loss = (loop.loss or token_loss)(logits_of(loop.engine, loop, batch), batch.labels,
                                     loop.label_smoothing)
    loop.engine.backward(loss)
    loop.engine.step()
    return loss.detach()


def graph_break(loop: Loop) -> None:
    """Run what lazy mode collected so far (after backward, after the optimizer step, as
    GaudiTrainer does); nothing on an eager device."""
    if loop.mark_step is not None:
        loop.mark_step()


@torch.no_grad()
def evaluate(loop: Loop) -> float:
    """The task's metric over every rank's eval share: the scorer's sums (e.g. correct top-1
    predictions and scored positions; BLEU's n-gram counts), all-reduced, combined (a ratio
    unless the task says otherwise). Each rank holds a disjoint share
    and may run a different number of batches: the forward goes around the DDP wrapper."""
    net = getattr(loop.model, "module", loop.model)
    net.eval()
    sums = []                       # per batch: device tensors or numbers, read once at the end
    with loop.eval_forward(net) if loop.eval_forward else contextlib.nullcontext():
        for raw in loop.eval_set:
            batch = loop.task.tensors(raw, loop.device)
            with autocast(loop):
                sums.append(loop.scorer(net, batch))
    net.train()
    local = [sum(float(numbers[i]) for numbers in sums) for i in range(loop.score_width)]
    return loop.combine(all_reduce_sum(local, loop.device))


def ratio(sums: list[float]) -> float:
    """The default metric: the first sum (e.g. correct predictions) over the second (scored)."""
    return sums[0] / sums[1] if sums[1] else float("nan")
