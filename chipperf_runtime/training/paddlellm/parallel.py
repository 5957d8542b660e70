"""Tensor, pipeline and sharded data parallelism for the Paddle LLM cases on Paddle's basic
collectives (all_reduce, reduce, broadcast, send/recv), which gloo runs on CPU and NCCL on
GPUs. Paddle's own hybrid-parallel layers do not run on CPU in paddlepaddle 3.3.1 (fleet's
ColumnParallelLinear: "Do not support c_identity for cpu kernel now"; group_sharded_parallel:
"only support gpu, xpu and custom_device now"), so the same code serves both and every
layout is tested on CPU.

- tensor parallel: Megatron's split (``copy_to_tp`` before a column-split matmul: identity
  forward, gradient all-reduced over the TP group; ``reduce_from_tp`` after a row-split one:
  all-reduced forward, identity backward).
- data parallel: gradients all-reduced (averaged) over the data-parallel group.
- sharding (ZeRO): each data-parallel rank owns a share of the parameters (greedy by size)
  and keeps AdamW state for those only; stage 1 all-reduces the gradients, stage 2 reduces
  each one to its owner only; after the step each owner broadcasts its parameters.
- pipeline: stages exchange hidden states and their gradients with send/recv, one
  micro-batch at a time through every stage (no overlap between stages: the simplest correct
  schedule; its bubble makes a PP run slower than PaddleNLP's 1F1B).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import paddle
import paddle.distributed as dist

from chipperf_runtime.training.paddlellm.layout import Layout


@dataclass
class Groups:
    """This rank's communication groups (None: a group of one) and coordinates."""

    layout: Layout
    rank: int
    tp: Any = None
    data: Any = None
    pp: Any = None

    @property
    def coords(self) -> tuple[int, int, int]:
        return self.layout.coords(self.rank)

    @property
    def tp_size(self) -> int:
        return self.layout.tp

    @property
    def tp_rank(self) -> int:
        return self.coords[2]

    @property
    def pp_size(self) -> int:
        return self.layout.pp

    @property
    def pp_rank(self) -> int:
        return self.coords[0]

    @property
    def data_rank(self) -> int:
        return self.coords[1]

    def stage_rank(self, stage: int) -> int:
        """The global rank holding ``stage`` for this rank's data and TP coordinates."""
        _, d, t = self.coords
        return self.layout.rank_of(stage, d, t)


def make_groups(layout: Layout, rank: int) -> Groups:
    """Every group of the layout is created on every rank (Paddle's new_group is collective,
    in the same order everywhere); this rank keeps its own."""
    groups = Groups(layout, rank)
    for attr, members in (("tp", layout.tp_groups()), ("data", layout.data_groups()),
                          ("pp", layout.pp_groups())):
        for ranks in members:
            group = dist.new_group(ranks) if len(ranks) > 1 else None
            if rank in ranks:
                setattr(groups, attr, group)
    return groups


class _CopyToTP(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx: Any, x: paddle.Tensor, group: Any) -> paddle.Tensor:
        ctx.group = group
        return x.clone()

    @staticmethod
    def backward(ctx: Any, grad: paddle.Tensor) -> paddle.Tensor:
        grad = grad.clone()
        dist.all_reduce(grad, group=ctx.group)
        return grad


class _ReduceFromTP(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx: Any, x: paddle.Tensor, group: Any) -> paddle.Tensor:
        out = x.clone()
        dist.all_reduce(out, group=group)
        return out

    @staticmethod
    def backward(ctx: Any, grad: paddle.Tensor) -> paddle.Tensor:
        return grad


def copy_to_tp(x: paddle.Tensor, groups: Groups) -> paddle.Tensor:
    return x if groups.tp is None else _CopyToTP.apply(x, groups.tp)


def reduce_from_tp(x: paddle.Tensor, groups: Groups) -> paddle.Tensor:
    return x if groups.tp is None else _ReduceFromTP.apply(x, groups.tp)


# ---------------------------------------------------------------- data parallel and ZeRO


def owners(params: Sequence[paddle.Tensor], ranks: int) -> list[int]:
    """The data-parallel rank owning each parameter: greedy, largest first, onto the least
    loaded rank (the same answer on every rank)."""
    load, owner = [0] * ranks, [0] * len(params)
    for i in sorted(range(len(params)), key=lambda i: (-int(params[i].size), i)):
        owner[i] = min(range(ranks), key=lambda r: (load[r], r))
        load[owner[i]] += int(params[i].size)
    return owner


@dataclass
class DataSync:
    """Gradient averaging over the data-parallel group, sharded (ZeRO) or not."""

    groups: Groups
    params: list[paddle.Tensor]
    owner: list[int]          # data rank owning each parameter (all 0..: sharded; else own)
    sharded: bool
    stage: int

    @classmethod
    def of(cls, groups: Groups, params: list[paddle.Tensor]) -> DataSync:
        layout = groups.layout
        sharded = layout.sharding > 1
        owner = owners(params, layout.data) if sharded else [groups.data_rank] * len(params)
        return cls(groups, params, owner, sharded, layout.stage)

    def owned(self) -> list[paddle.Tensor]:
        """The parameters this rank's optimizer steps."""
        return [p for p, o in zip(self.params, self.owner) if o == self.groups.data_rank]

    def global_rank(self, data_rank: int) -> int:
        stage, _, tp_rank = self.groups.coords
        return self.groups.layout.rank_of(stage, data_rank, tp_rank)

    @paddle.no_grad()
    def average_gradients(self) -> None:
        """Each gradient summed over the data ranks and divided by their number; stage 2 only
        on its owner (the others drop theirs)."""
        size = self.groups.layout.data
        if self.groups.data is None:
            return
        for p, o in zip(self.params, self.owner):
            if p.grad is None:     # every parameter takes part in every step
                raise RuntimeError(f"parameter {p.name} has no gradient after backward")
            if self.sharded and self.stage == 2:
                dist.reduce(p.grad, dst=self.global_rank(o), group=self.groups.data)
                if o != self.groups.data_rank:
                    p.clear_gradient(set_to_zero=False)
                    continue
            else:
                dist.all_reduce(p.grad, group=self.groups.data)
            p.grad.scale_(1.0 / size)

    @paddle.no_grad()
    def broadcast_parameters(self) -> None:
        """After the owners' step: every rank gets the new value of every parameter."""
        if not self.sharded or self.groups.data is None:
            return
        for p, o in zip(self.params, self.owner):
            dist.broadcast(p, src=self.global_rank(o), group=self.groups.data)


@paddle.no_grad()
def clip_by_global_norm(sync: DataSync, max_norm: float) -> float:
    """Scale this rank's owned gradients so that the norm over the whole model's gradient
    is at most ``max_norm``; returns that norm (the same on every rank). TP-split parameters
    are summed over the TP group, replicated ones counted once; stages over the PP group;
    owners' shares over the data group when sharded."""
    split, replicated = [0.0], [0.0]
    for p in sync.owned():
        if p.grad is not None:
            (split if getattr(p, "tp_split", False) else replicated)[0] += \
                float(p.grad.astype("float32").pow(2).sum())
    total = all_reduce_float(split[0], sync.groups.tp) + replicated[0]
    total = all_reduce_float(total, sync.groups.pp)
    if sync.sharded:
        total = all_reduce_float(total, sync.groups.data)
    norm = total ** 0.5
    if max_norm > 0 and norm > max_norm:
        for p in sync.owned():
            if p.grad is not None:
                p.grad.scale_(max_norm / (norm + 1e-6))
    return norm


def all_reduce_float(value: float, group: Any, op: Any = None) -> float:
    if group is None:
        return value
    t = paddle.to_tensor([value], dtype="float64")
    dist.all_reduce(t, op=op if op is not None else dist.ReduceOp.SUM, group=group)
    return float(t.numpy()[0])


def world_sum(value: float, distributed: bool) -> float:
    """``value`` summed over every rank."""
    if not distributed:
        return value
    t = paddle.to_tensor([value], dtype="float64")
    dist.all_reduce(t)
    return float(t.numpy()[0])


# ---------------------------------------------------------------- pipeline


def send_to(x: paddle.Tensor, rank: int) -> None:
    dist.send(x.detach().contiguous(), dst=rank)


def recv_from(shape: list[int], dtype: Any, rank: int) -> paddle.Tensor:
    buf = paddle.zeros(shape, dtype=dtype)
    dist.recv(buf, src=rank)
    return buf
