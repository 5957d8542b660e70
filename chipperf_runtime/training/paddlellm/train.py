"""The Paddle side of the LLM cases' training loop (a ``textlm.loop.Trainer``): micro-batches
through the pipeline stages, gradient accumulation, data-parallel or sharded gradient sync,
global-norm clipping, AdamW, and the validation loss."""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Literal

import numpy as np
import paddle

from chipperf_runtime.training.paddlellm.model import Stage, causal_lm_loss
from chipperf_runtime.training.paddlellm.parallel import (
    DataSync,
    Groups,
    all_reduce_float,
    clip_by_global_norm,
    recv_from,
    send_to,
)

AMP: dict[str, Literal["bfloat16", "float16"]] = {"bf16": "bfloat16", "fp16": "float16"}


@dataclass
class Loop:
    stage: Stage
    groups: Groups
    sync: DataSync
    optimizer: Any                    # AdamW over the owned parameters (None: owns none)
    scheduler: Any
    train_epoch: Callable[[int], Iterator[np.ndarray]]   # epoch -> this rank's micro-batches
    eval_set: list[np.ndarray]
    accumulation: int                 # micro-batches per optimizer step
    max_grad_norm: float
    dtype: str = "fp32"
    loss_scale: float = 1.0           # fp16: static loss scale (FlagPerf's scale_loss)
    hidden: int = 0
    _micro: int = 0
    _losses: list[float] = field(default_factory=list)
    skipped_steps: int = 0            # fp16 steps skipped for a non-finite gradient

    # ---- textlm.loop.Trainer
    def batches(self, epoch: int) -> Iterator[np.ndarray]:
        return self.train_epoch(epoch)

    def work(self, tokens: np.ndarray) -> float:
        """Tokens of the micro-batch, this rank's share of the TP x PP ranks that computed it
        (summed over every rank it counts each token once)."""
        return tokens.shape[0] * (tokens.shape[1] - 1) / (self.groups.tp_size * self.groups.pp_size)

    def lr(self) -> float:
        return float(self.scheduler.last_lr)

    def step(self, tokens: np.ndarray) -> tuple[float, bool]:
        loss = self.forward_backward(tokens)
        self._losses.append(loss)
        self._micro += 1
        if self._micro < self.accumulation:
            return loss, False
        self._micro = 0
        self.optimizer_step()
        mean = sum(self._losses) / len(self._losses)
        self._losses = []
        return mean, True

    def evaluate(self) -> float:
        """Mean next-token loss over the validation windows (every data rank its share)."""
        self.stage.eval()
        total, count = 0.0, 0.0
        with paddle.no_grad():
            for tokens in self.eval_set:
                loss = self.pipeline_forward(tokens, train=False)
                total, count = total + loss * len(tokens), count + len(tokens)
        self.stage.train()
        total = all_reduce_float(total, self.groups.data)
        count = all_reduce_float(count, self.groups.data)
        return total / count if count else float("nan")

    # ---- the pipeline
    def autocast(self) -> contextlib.AbstractContextManager:
        if self.dtype not in AMP:
            return contextlib.nullcontext()
        return paddle.amp.auto_cast(level="O1", dtype=AMP[self.dtype])

    def pipeline_forward(self, tokens: np.ndarray, train: bool) -> float:
        """One micro-batch through every stage (backward too when ``train``); the loss, the
        same on every stage."""
        g, stage = self.groups, self.stage
        ids = paddle.to_tensor(tokens[:, :-1], dtype="int64")
        labels = paddle.to_tensor(tokens[:, 1:], dtype="int64")
        shape = [ids.shape[0], ids.shape[1], self.hidden]
        if stage.first:
            inputs = ids
        else:
            inputs = recv_from(shape, "float32", g.stage_rank(g.pp_rank - 1))
            inputs.stop_gradient = not train
        with self.autocast():
            out = stage(inputs)
        loss_value = 0.0
        if stage.last:
            loss = causal_lm_loss(out, labels)
            loss_value = float(loss)
            if train:
                (loss * (self.loss_scale / self.accumulation)).backward()
        else:
            send_to(out.astype("float32"), g.stage_rank(g.pp_rank + 1))
            if train:
                grad = recv_from(shape, "float32", g.stage_rank(g.pp_rank + 1))
                paddle.autograd.backward([out], [grad.astype(out.dtype)])
        if train and not stage.first:
            if inputs.grad is None:
                raise RuntimeError("pipeline: the stage input got no gradient in backward")
            send_to(inputs.grad, g.stage_rank(g.pp_rank - 1))
        return self.from_last_stage(loss_value)

    def from_last_stage(self, value: float) -> float:
        """The last stage's value on every stage of this pipeline."""
        if self.groups.pp is None:
            return value
        return all_reduce_float(value if self.stage.last else 0.0, self.groups.pp)

    def forward_backward(self, tokens: np.ndarray) -> float:
        return self.pipeline_forward(tokens, train=True)

    @paddle.no_grad()
    def optimizer_step(self) -> None:
        """Sync, unscale, skip on a non-finite gradient (fp16), clip, step, share."""
        self.sync.average_gradients()
        owned = self.sync.owned()
        if self.loss_scale != 1.0:
            for p in owned:
                if p.grad is not None:
                    p.grad.scale_(1.0 / self.loss_scale)
        norm = clip_by_global_norm(self.sync, self.max_grad_norm)
        if math.isfinite(norm) and self.optimizer is not None:
            self.optimizer.step()
        elif not math.isfinite(norm):
            self.skipped_steps += 1
        for p in self.sync.params:
            p.clear_gradient(set_to_zero=False)
        self.sync.broadcast_parameters()
        self.scheduler.step()
