"""The LLM cases' side of ``textlm.loop``: micro-steps of a TP x EP x FSDP2 model (gradient
accumulation, clipping over every shard, AdamW with warmup-cosine), or, with pipeline stages,
one schedule run per optimizer step over its micro-batches; the eval loss, and a non-finite
loss ending the case (``Diverged``) at its step. The loss reported at a step is the mean cross
entropy of the step's micro-batches on this data-parallel rank."""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np
import torch
import torch.distributed as tdist
import torch.nn.functional as F
from torch import nn
from torch.distributed.tensor import DTensor

from chipperf_runtime.training.driver import Diverged
from chipperf_runtime.training.driver.torchdist import all_reduce_sum
from chipperf_runtime.training.llmtrain.context import ContextShard, load_balancing_loss
from chipperf_runtime.training.llmtrain.pipeline import Pipeline


@dataclass
class Loop:
    """A ``textlm.loop.Trainer``."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    device: torch.device
    train_epoch: Callable[[int], Iterator[Any]]          # epoch -> this rank's micro-batches
    eval_set: list[Any]
    accumulation: int                                    # micro-batches per optimizer step
    grad_clip_norm: float
    counts_work: bool                                    # this rank reports the tokens it trained
    aux_loss_coef: float = 0.0                           # MoE load-balancing loss weight
    own_shards: frozenset[int] = frozenset()             # ids of the experts' TP/EP slices
    stage_world: int = 1                                 # ranks holding one pipeline stage
    pipeline: Pipeline | None = None                     # the schedule, with pipeline stages
    autocast: torch.dtype | None = None                  # one process (no FSDP2 mixed precision)
    context: ContextShard | None = None                  # this rank's part of each sequence
    micro: int = field(default=0)
    step_no: int = field(default=0)
    losses: list[torch.Tensor] = field(default_factory=list)  # this step's cross entropies
    pending: list[np.ndarray] = field(default_factory=list)   # this step's micro-batches (PP)

    def batches(self, epoch: int) -> Iterator[np.ndarray]:
        return self.train_epoch(epoch)

    def step(self, tokens: np.ndarray) -> tuple[torch.Tensor, bool]:
        return micro_step(self, tokens) if self.pipeline is None else pipeline_step(self, tokens)

    def work(self, tokens: Any) -> int:
        """Tokens predicted (counted by one rank of each tensor-parallel group)."""
        return tokens.shape[0] * (tokens.shape[1] - 1) if self.counts_work else 0

    def lr(self) -> float:
        return float(self.scheduler.get_last_lr()[0])

    def evaluate(self) -> float:
        return evaluate(self)

    def loss(self, batch: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """(training loss, next-token cross entropy) of one micro-batch; a case with other
        inputs (llava1.5_7b: images, masked labels) overrides it, ``targets`` and ``work``."""
        return loss_of(self, batch)

    def targets(self, batch: Any) -> int:
        """Next-token predictions the cross entropy of ``batch`` averages over."""
        return batch.shape[0] * (batch.shape[1] - 1)


def split(tokens: np.ndarray, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """[batch, seq+1] tokens -> (inputs, next-token targets) on the device."""
    tensor = torch.from_numpy(tokens.astype(np.int64)).to(device, non_blocking=True)
    return tensor[:, :-1], tensor[:, 1:]


def autocast(loop: Loop) -> contextlib.AbstractContextManager:
    """bf16 autocast over fp32 weights when one process trains (``loop.autocast``); with a
    mesh FSDP2's mixed-precision policy casts instead."""
    if loop.autocast is None:
        return contextlib.nullcontext()
    return torch.autocast(device_type=loop.device.type, dtype=loop.autocast)


def loss_of(loop: Loop, tokens: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """(training loss, next-token cross entropy) of one micro-batch. Under context
    parallelism the rank trains on its part of each sequence (``llmtrain.context``) and the
    cross entropy returned is the whole sequence's (the group's mean)."""
    inputs, targets = split(tokens, loop.device)
    moe, where = loop.aux_loss_coef > 0, {}
    if loop.context is not None:
        inputs, targets, where["position_ids"] = loop.context.take(inputs, targets)
    with autocast(loop):
        out = loop.model(input_ids=inputs, output_router_logits=True, **where) if moe else \
            loop.model(input_ids=inputs, **where)
    logits = out.logits
    ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), targets.reshape(-1))
    aux = getattr(out, "aux_loss", None)
    if moe and loop.context is not None:
        model: Any = loop.model
        aux = load_balancing_loss(model.config, out.router_logits, loop.context)
    loss = ce + loop.aux_loss_coef * aux if moe and aux is not None else ce
    return loss, ce if loop.context is None else loop.context.mean(ce)


def micro_step(loop: Loop, tokens: np.ndarray) -> tuple[torch.Tensor, bool]:
    """forward + backward; at the accumulation boundary clip, step and zero the gradients.
    Returns the cross entropy (of the step's micro-batches once it steps) and whether the
    optimizer stepped."""
    loss, ce = loop.loss(tokens)
    (loss / loop.accumulation).backward()
    loop.losses.append(ce.detach())
    if len(loop.losses) < loop.accumulation:
        return ce.detach(), False
    mean = torch.stack(loop.losses).mean()
    loop.losses.clear()
    return mean, optimizer_step(loop, mean)


def pipeline_step(loop: Loop, tokens: np.ndarray) -> tuple[torch.Tensor, bool]:
    """Collect the step's micro-batches; at the boundary run them through the pipeline
    schedule (forward, backward, cross entropy on the last stage), then clip and step."""
    assert loop.pipeline is not None
    loop.pending.append(tokens)
    if len(loop.pending) < loop.accumulation:
        return torch.tensor(float("nan")), False
    inputs, targets = split(np.concatenate(loop.pending), loop.device)
    loop.pending.clear()
    if loop.context is not None:
        inputs, targets, _ = loop.context.take(inputs, targets)
    mean = loop.pipeline.train_step(inputs, targets)
    if loop.context is not None:
        mean = loop.context.mean(mean)
    return mean, optimizer_step(loop, mean)


def optimizer_step(loop: Loop, loss: torch.Tensor) -> bool:
    loop.step_no += 1
    check_finite(loss, loop.step_no)
    clip_grad_norm(loop.model, loop.grad_clip_norm, loop.own_shards, loop.stage_world)
    loop.optimizer.step()
    loop.optimizer.zero_grad(set_to_none=True)
    loop.scheduler.step()
    return True


def eval_loss(loop: Loop, tokens: np.ndarray) -> torch.Tensor | None:
    """The micro-batch's cross entropy (None on a rank that is not the last pipeline stage)."""
    if loop.pipeline is None:
        return loop.loss(tokens)[1]
    inputs, targets = split(tokens, loop.device)
    if loop.context is not None:
        inputs, targets, _ = loop.context.take(inputs, targets)
    hidden = int(loop.pipeline.modules[0].config.hidden_size)
    ce = loop.pipeline.eval_loss(inputs, targets, hidden)
    return ce if ce is None or loop.context is None else loop.context.mean(ce)


def check_finite(loss: torch.Tensor, step: int) -> None:
    """A NaN or infinite loss ends the case as failed, naming the optimizer step."""
    value = float(loss.detach())
    if not math.isfinite(value):
        raise Diverged(f"training diverged: loss is {value} at step {step}")


def clip_grad_norm(model: nn.Module, max_norm: float, own_shards: frozenset[int],
                   stage_world: int = 1) -> float:
    """Scale the gradients so that their global L2 norm is at most ``max_norm``; returns the
    norm. Each shard is counted once: a gradient that is the same on every rank of a
    tensor-parallel group (a parameter only FSDP shards) counts 1/group-size per rank; the
    experts' slices (``own_shards``: a different slice on each rank) count whole. A pipeline
    stage's parameters live on the ``stage_world`` ranks of its stage only."""
    world = stage_world
    total = torch.zeros((), dtype=torch.float64, device=_device(model))
    params = [p for p in model.parameters() if p.grad is not None]
    grads = [p.grad for p in params if p.grad is not None]
    for param, grad in zip(params, grads):
        local, copies = _local_and_copies(grad, world)
        total += local.double().pow(2).sum() / (1 if id(param) in own_shards else copies)
    if tdist.is_initialized():
        tdist.all_reduce(total)
    norm = float(total.sqrt())
    if max_norm > 0 and norm > max_norm:
        for grad in grads:
            _local_and_copies(grad, world)[0].mul_(max_norm / (norm + 1e-6))
    return norm


def _local_and_copies(grad: torch.Tensor, world: int) -> tuple[torch.Tensor, int]:
    """The rank's shard and on how many ranks the same shard lives (outside its mesh, and
    along the mesh dimensions it is replicated over: a sequence-parallel norm's weight)."""
    if isinstance(grad, DTensor):
        mesh = grad.device_mesh
        replicas = math.prod(mesh.size(d) for d, p in enumerate(grad.placements)
                             if p.is_replicate())
        return grad.to_local(), world // mesh.size() * replicas
    return grad, world


def _device(model: nn.Module) -> torch.device:
    param = next(model.parameters())
    return param.to_local().device if isinstance(param, DTensor) else param.device


@torch.no_grad()
def evaluate(loop: Loop) -> float:
    """Mean next-token loss (nats/token) over the eval samples of every data-parallel rank
    (counted on the last pipeline stage only)."""
    loop.model.eval()
    loss_sum, count = 0.0, 0.0
    for tokens in loop.eval_set:
        ce = eval_loss(loop, tokens)
        if ce is None:
            continue
        n = loop.targets(tokens)
        loss_sum, count = loss_sum + float(ce) * n, count + n
    loop.model.train()
    loss_sum, count = all_reduce_sum([loss_sum, count], loop.device)
    return loss_sum / count if count else float("nan")
