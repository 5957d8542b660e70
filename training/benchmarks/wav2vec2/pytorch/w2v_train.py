"""The PyTorch side of the wav2vec2 loop (a ``textlm.loop.Trainer``): the contrastive
pretraining step and the contrastive accuracy; steps, evaluation cadence, STEP_END, the
non-finite loss check and early stop are ``textlm.loop``'s."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

import torch
from torch import nn
from w2v_batches import Batch

from chipperf_runtime.training.driver.torchdist import all_reduce_sum

AUTOCAST = {"bf16": torch.bfloat16}


@dataclass(frozen=True)
class Tensors:
    audio: torch.Tensor
    mask: torch.Tensor
    negatives: torch.Tensor
    masked_total: int       # masked frames of the global batch, all ranks together


def on_device(batch: Batch, device: torch.device) -> Tensors:
    def tensor(a: Any) -> torch.Tensor:
        return torch.as_tensor(a).to(device, non_blocking=True)
    return Tensors(tensor(batch.audio), tensor(batch.mask), tensor(batch.negatives),
                   batch.masked_total)


@dataclass(frozen=True)
class Gumbel:
    """The quantizer's Gumbel-softmax temperature: ``high * decay**step``, floored at ``low``
    (FlagPerf's latent_temp = (2.0, 0.5, 0.999995))."""

    high: float
    low: float
    decay: float

    def at(self, step: int) -> float:
        return max(self.high * self.decay ** step, self.low)


@dataclass
class Loop:
    """A ``textlm.loop.Trainer`` (built by ``run_pretraining.build_loop``)."""

    model: nn.Module                      # DDP-wrapped on several ranks
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    device: torch.device
    dtype: str
    grad_clip_norm: float
    gumbel: Gumbel
    train_epoch: Callable[[int], Iterable[Batch]]   # epoch -> this rank's batches
    eval_set: Sequence[Batch]                       # this rank's share of the eval subset
    world: int = 1                                  # ranks (DDP averages their gradients)
    steps: int = 0

    def batches(self, epoch: int) -> Iterator[Tensors]:
        return (on_device(b, self.device) for b in self.train_epoch(epoch))

    def step(self, batch: Tensors) -> tuple[torch.Tensor, bool]:
        return train_step(self, batch), True

    def work(self, batch: Tensors) -> int:
        return int(batch.audio.shape[0])

    def lr(self) -> float:
        return float(self.scheduler.get_last_lr()[0])

    def evaluate(self) -> float:
        return evaluate(self)


def unwrapped(model: nn.Module) -> Any:
    return getattr(model, "module", model)


def autocast(loop: Loop) -> contextlib.AbstractContextManager:
    if loop.dtype not in AUTOCAST:
        return contextlib.nullcontext()
    return torch.autocast(device_type=loop.device.type, dtype=AUTOCAST[loop.dtype])


def forward(model: nn.Module, loop: Loop, batch: Tensors) -> Any:
    with autocast(loop):
        return model(batch.audio, mask_time_indices=batch.mask,
                     sampled_negative_indices=batch.negatives)


def train_step(loop: Loop, batch: Tensors) -> torch.Tensor:
    """forward + backward + optimizer step; returns this rank's loss (contrastive + weighted
    diversity) per masked frame, unsynchronised.

    The gradient is that of the global batch's loss per masked frame, whatever the world
    size: each rank's summed loss is scaled by ``world / masked frames of the global batch``
    and DDP averages over the ranks. (Each rank's own mean, DDP-averaged, would weigh a
    frame by its rank's masked-frame count.) The diversity term's codebook perplexity is
    still each rank's (a statistic of the batch transformers' quantizer is given)."""
    unwrapped(loop.model).set_gumbel_temperature(loop.gumbel.at(loop.steps))
    loop.optimizer.zero_grad(set_to_none=True)
    summed = forward(loop.model, loop, batch).loss.float()
    (summed * (loop.world / batch.masked_total)).backward()
    if loop.grad_clip_norm > 0:
        nn.utils.clip_grad_norm_(loop.model.parameters(), loop.grad_clip_norm)
    loop.optimizer.step()
    loop.scheduler.step()
    loop.steps += 1
    return summed.detach() / batch.mask.sum()


def contrastive_correct(out: Any, batch: Tensors) -> tuple[torch.Tensor, torch.Tensor]:
    """(masked frames whose context vector is closer, by cosine, to its own quantized target
    than to every negative that differs from it; masked frames), as device tensors. A frame
    whose negatives all equal its target (a collapsed codebook) counts as wrong."""
    context, targets = out.projected_states.float(), out.projected_quantized_states.float()
    rows, frames, dim = targets.shape
    negatives = targets.reshape(-1, dim)[batch.negatives.reshape(-1)].view(
        rows, frames, -1, dim)
    positive = torch.cosine_similarity(context, targets, dim=-1)
    scores = torch.cosine_similarity(context[:, :, None], negatives, dim=-1)
    distinct = ~(negatives == targets[:, :, None]).all(-1)
    scores = scores.masked_fill(~distinct, float("-inf"))
    right = (positive > scores.max(-1).values) & distinct.any(-1) & batch.mask
    return right.sum(), batch.mask.sum()


@torch.no_grad()
def evaluate(loop: Loop) -> float:
    """Contrastive accuracy over every masked frame of the eval share of every rank (each
    rank may run a different number of batches: the forward goes around the DDP wrapper)."""
    net = unwrapped(loop.model)
    net.eval()
    correct = torch.zeros((), dtype=torch.int64, device=loop.device)
    total = torch.zeros((), dtype=torch.int64, device=loop.device)
    for raw in loop.eval_set:
        batch = on_device(raw, loop.device)
        right, seen = contrastive_correct(forward(net, loop, batch), batch)
        correct, total = correct + right, total + seen
    net.train()
    right_all, seen_all = all_reduce_sum([float(correct.item()), float(total.item())], loop.device)
    return right_all / seen_all if seen_all else float("nan")
