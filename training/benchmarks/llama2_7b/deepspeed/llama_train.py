"""The DeepSpeed side of the training loop: micro-steps through the engine and the eval loss;
steps, eval cadence and early stop are ``textlm.loop``'s."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np
import torch
import torch.nn.functional as F

from chipperf_runtime.training.driver.torchdist import all_reduce_sum


@dataclass
class Loop:
    """A ``textlm.loop.Trainer`` (built by run_pretraining)."""

    engine: Any                                       # deepspeed.DeepSpeedEngine
    device: torch.device
    train_epoch: Callable[[int], Iterator[np.ndarray]]   # epoch -> this rank's micro-batches
    eval_set: list[np.ndarray]                        # this rank's share of the eval samples

    def batches(self, epoch: int) -> Iterator[np.ndarray]:
        return self.train_epoch(epoch)

    def step(self, tokens: np.ndarray) -> tuple[torch.Tensor, bool]:
        return micro_step(self, tokens)

    def work(self, tokens: np.ndarray) -> int:
        """Tokens predicted: each sample's inputs (its last token is only a target)."""
        return tokens.shape[0] * (tokens.shape[1] - 1)

    def lr(self) -> float:
        return self.engine.get_lr()[0]

    def evaluate(self) -> float:
        return evaluate(self)


def causal_lm_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross entropy (nats); ``targets`` are the inputs shifted by one."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), targets.reshape(-1))


def logits(engine: Any, inputs: torch.Tensor) -> torch.Tensor:
    """[batch, seq, vocab] from the engine's LlamaForCausalLM."""
    return engine(input_ids=inputs).logits


def split(tokens: np.ndarray, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """[batch, seq+1] tokens -> (inputs, next-token targets) on the device."""
    tensor = torch.from_numpy(tokens).to(device, non_blocking=True)
    return tensor[:, :-1], tensor[:, 1:]


def micro_step(loop: Loop, tokens: np.ndarray) -> tuple[torch.Tensor, bool]:
    """forward + backward (+ optimizer step at the accumulation boundary); returns the
    (unsynchronised) loss and whether an optimizer step was taken."""
    inputs, targets = split(tokens, loop.device)
    boundary = loop.engine.is_gradient_accumulation_boundary()
    loss = causal_lm_loss(logits(loop.engine, inputs), targets)
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
        loss_sum += float(causal_lm_loss(logits(loop.engine, inputs), targets)) * targets.numel()
        count += targets.numel()
    loop.engine.train()
    loss_sum, count = all_reduce_sum([loss_sum, count], loop.device)
    return loss_sum / count if count else float("nan")
