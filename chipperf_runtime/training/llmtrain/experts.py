"""Expert and tensor parallelism for transformers' mixture-of-experts blocks (MixtralExperts:
every expert's SwiGLU weights stacked in ``gate_up_proj [E, 2I, H]``, gate rows then up rows,
and ``down_proj [E, H, I]``).

Expert parallelism: the ``ep`` ranks of an expert-parallel group (different data-parallel
ranks, so different tokens) hold ``E / ep`` experts each. Every rank routes its own tokens,
sorts its (token, expert) pairs by expert and sends each pair's hidden state to the rank that
holds the expert with ``all_to_all_single``; the counts go first, on a fixed-size tensor (one
per expert), so every rank issues the same collectives in the same order whatever the routing
(an expert with no tokens is a zero split, never a skipped call). The received rows are
regrouped by local expert and run through two grouped GEMMs (``torch._grouped_mm`` over the
local experts when the shapes meet its 16-byte stride rule, else one matmul per local expert
on its sorted segment), then sent back the same way and combined with the routing weights.
An expert weight sees the tokens of its whole expert-parallel group, and FSDP averages it over
the remaining data-parallel ranks only, so its gradient is scaled by ``1 / ep`` (the same
mean over the global batch that the dense weights get).

Tensor parallelism: each rank of a tensor-parallel group keeps every (local) expert's slice
``I / tp`` of the SwiGLU width (its gate and up rows, the matching down columns), Megatron's
column-then-row split applied expert by expert. The ranks of a group see the same tokens and
route them the same way (the router stays replicated), so each computes every routed token's
partial output and the partials are summed over the group (Megatron's "f"/"g" pair: identity
forward and all-reduce backward into the region, the reverse out of it). The tokens and their
routing weights enter the region as one tensor (one all-reduce in backward).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as tdist
from torch import nn
from torch.distributed.device_mesh import DeviceMesh


class _IntoGroup(torch.autograd.Function):
    """Identity forward; the gradient summed over the group (each rank saw part of the use)."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, group: tdist.ProcessGroup) -> torch.Tensor:  # type: ignore[override]
        ctx.group = group
        return x

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        grad = grad.contiguous()
        tdist.all_reduce(grad, group=ctx.group)
        return grad, None


class _OutOfGroup(torch.autograd.Function):
    """The group's partial sums added up forward (into a new tensor: an input returned from an
    autograd.Function is a view, which FSDP2 warns about as a wrapped module's output); the
    gradient passes through unchanged."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, group: tdist.ProcessGroup) -> torch.Tensor:  # type: ignore[override]
        total = x.clone(memory_format=torch.contiguous_format)
        tdist.all_reduce(total, group=group)
        return total

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        return grad, None


class _AllToAll(torch.autograd.Function):
    """Rows exchanged over the group (``send[i]`` rows to rank i, ``recv[i]`` from it); the
    gradient goes back the reverse way."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, send: list[int], recv: list[int],  # type: ignore[override]
                group: tdist.ProcessGroup) -> torch.Tensor:
        ctx.send, ctx.recv, ctx.group = send, recv, group
        return exchange(x, send, recv, group)

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None, None, None]:  # type: ignore[override]
        return exchange(grad, ctx.recv, ctx.send, ctx.group), None, None, None


class _ScaleGrad(torch.autograd.Function):
    """Identity forward; the gradient times ``factor``."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, factor: float) -> torch.Tensor:  # type: ignore[override]
        ctx.factor = factor
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        return grad * ctx.factor, None


def exchange(x: torch.Tensor, send: list[int], recv: list[int],
             group: tdist.ProcessGroup) -> torch.Tensor:
    out = x.new_empty((sum(recv), *x.shape[1:]))
    tdist.all_to_all_single(out, x.contiguous(), recv, send, group=group)
    return out


def grouped_linear(x: torch.Tensor, weight: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    """``x`` rows sorted by group (``counts[g]`` rows each) times ``weight[g].T`` [G, out, in]:
    one grouped GEMM when the shapes allow, else one matmul per group's segment."""
    if _grouped_mm_fits(x, weight):
        offsets = torch.cumsum(counts, 0).to(torch.int32)
        return torch._grouped_mm(x.contiguous(), weight.transpose(-2, -1), offs=offsets)
    parts = [nn.functional.linear(rows, w) for rows, w in
             zip(torch.split(x, counts.tolist()), weight.unbind(0))]
    return torch.cat(parts) if parts else x.new_empty((0, weight.shape[1]))


def _grouped_mm_fits(x: torch.Tensor, weight: torch.Tensor) -> bool:
    """torch._grouped_mm needs every stride a multiple of 16 bytes."""
    align = 16 // x.element_size()
    return hasattr(torch, "_grouped_mm") and x.shape[-1] % align == 0 and \
        weight.shape[1] % align == 0 and x.dtype == weight.dtype


class ParallelExperts(nn.Module):
    """This rank's experts (``E / ep``) and its slice of their SwiGLU width (``I / tp``); see
    the module doc."""

    def __init__(self, full: Any, tp: tuple[tdist.ProcessGroup | None, int, int],
                 ep: tuple[tdist.ProcessGroup | None, int, int] = (None, 0, 1)):
        super().__init__()
        self.num_experts, self.width = int(full.num_experts), int(full.intermediate_dim)
        (self.group, rank, self.size), (self.ep_group, ep_rank, self.ep_size) = tp, ep
        self.part = slice(rank * self.width // self.size, (rank + 1) * self.width // self.size)
        self.local = self.num_experts // self.ep_size
        self.mine = slice(ep_rank * self.local, (ep_rank + 1) * self.local)
        self.gate_up_proj = nn.Parameter(self.take("gate_up_proj", full.gate_up_proj.detach()))
        self.down_proj = nn.Parameter(self.take("down_proj", full.down_proj.detach()))
        self.act_fn: Any = full.act_fn

    def full_shape(self, name: str) -> torch.Size:
        """The shape of the whole stack this rank holds a slice of."""
        e, h, i = self.num_experts, int(self.gate_up_proj.shape[-1]), self.width
        return torch.Size((e, 2 * i, h) if name == "gate_up_proj" else (e, h, i))

    def take(self, name: str, full: torch.Tensor) -> torch.Tensor:
        """This rank's slice of the whole ``name`` stack."""
        full = full[self.mine]
        if name == "gate_up_proj":
            up = slice(self.width + self.part.start, self.width + self.part.stop)
            return torch.cat([full[:, self.part], full[:, up]], dim=1).clone()
        return full[:, :, self.part].clone()

    def forward(self, hidden: torch.Tensor, top_k_index: torch.Tensor,
                top_k_weights: torch.Tensor) -> torch.Tensor:
        if self.size > 1:
            width = hidden.shape[-1]
            both = _IntoGroup.apply(torch.cat([hidden, top_k_weights.to(hidden.dtype)], -1),
                                    self.group)
            hidden, top_k_weights = both[:, :width], both[:, width:]
        k = top_k_index.shape[-1]
        expert = top_k_index.reshape(-1)
        order = torch.argsort(expert, stable=True)
        token = order // k
        counts = torch.bincount(expert, minlength=self.num_experts)
        rows = self.dispatched(hidden[token], counts)
        weight = top_k_weights.reshape(-1)[order, None]
        out = torch.zeros_like(hidden).index_add_(0, token, (rows * weight).to(hidden.dtype))
        return _OutOfGroup.apply(out, self.group) if self.size > 1 else out

    def dispatched(self, rows: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        """Rows sorted by expert (``counts`` per expert) through their experts, same order."""
        if self.ep_size == 1:
            return self.swiglu(rows, counts)
        group, ep, local = self.ep_group, self.ep_size, self.local
        received = torch.empty_like(counts)     # [source rank, local expert] counts
        tdist.all_to_all_single(received, counts, group=group)
        send = counts.view(ep, local).sum(1).tolist()
        recv = received.view(ep, local).sum(1).tolist()
        inbound = _AllToAll.apply(rows, send, recv, group)
        expert_of = torch.arange(local, device=rows.device).repeat(ep)
        by_expert = torch.argsort(torch.repeat_interleave(expert_of, received), stable=True)
        done = self.swiglu(inbound[by_expert], received.view(ep, local).sum(0))
        return _AllToAll.apply(done[torch.argsort(by_expert)], recv, send, group)

    def swiglu(self, rows: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        """The local experts' SwiGLU on rows sorted by local expert."""
        gate_up, down = self.gate_up_proj, self.down_proj
        if self.ep_size > 1:
            gate_up, down = _ScaleGrad.apply(gate_up, 1 / self.ep_size), \
                _ScaleGrad.apply(down, 1 / self.ep_size)
        gate, up = grouped_linear(rows, gate_up, counts).chunk(2, -1)
        return grouped_linear(self.act_fn(gate) * up, down, counts)


def shard_experts(block: nn.Module, experts: Any, tp: DeviceMesh, ep: DeviceMesh) -> None:
    """Replace ``block.experts`` by this rank's share of them over the 1-D ``tp`` and ``ep``
    meshes."""
    if experts.intermediate_dim % tp.size():
        raise ValueError(f"expert width {experts.intermediate_dim} does not split over "
                         f"{tp.size()} ranks")
    if experts.num_experts % ep.size():
        raise ValueError(f"{experts.num_experts} experts do not split over {ep.size()} ranks")
    block.experts = ParallelExperts(experts, (tp.get_group(), tp.get_local_rank(), tp.size()),
                                    (ep.get_group(), ep.get_local_rank(), ep.size()))
