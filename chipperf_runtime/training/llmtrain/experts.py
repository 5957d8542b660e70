"""Tensor parallelism for transformers' mixture-of-experts blocks (MixtralExperts: every
expert's SwiGLU weights stacked in ``gate_up_proj [E, 2I, H]``, gate rows then up rows, and
``down_proj [E, H, I]``).

Each rank of a tensor-parallel group keeps every expert's slice ``I / tp`` of the SwiGLU width
(its gate and up rows, the matching down columns), Megatron's column-then-row split applied
expert by expert. The ranks of a group see the same tokens and route them the same way (the
router stays replicated), so each computes every routed token's partial output and the
partials are summed over the group (Megatron's "f"/"g" pair: identity forward and all-reduce
backward into the region, the reverse out of it). Every rank of a group runs the same graph,
so the group's collectives are issued in the same order everywhere; the tokens and their
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
    """The group's partial sums added up forward; the gradient passes through unchanged."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, group: tdist.ProcessGroup) -> torch.Tensor:  # type: ignore[override]
        x = x.contiguous()
        tdist.all_reduce(x, group=group)
        return x

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        return grad, None


class ParallelExperts(nn.Module):
    """This rank's slice ``part`` of every expert's SwiGLU width (see the module doc)."""

    def __init__(self, full: Any, group: tdist.ProcessGroup | None, rank: int, size: int):
        super().__init__()
        self.num_experts, self.width = int(full.num_experts), int(full.intermediate_dim)
        self.group, self.size = group, size
        self.part = slice(rank * self.width // size, (rank + 1) * self.width // size)
        self.gate_up_proj = nn.Parameter(self.take("gate_up_proj", full.gate_up_proj.detach()))
        self.down_proj = nn.Parameter(self.take("down_proj", full.down_proj.detach()))
        self.act_fn: Any = full.act_fn

    def full_shape(self, name: str) -> torch.Size:
        """The shape of the whole stack this rank holds a slice of."""
        e, h, i = self.num_experts, int(self.gate_up_proj.shape[-1]), self.width
        return torch.Size((e, 2 * i, h) if name == "gate_up_proj" else (e, h, i))

    def take(self, name: str, full: torch.Tensor) -> torch.Tensor:
        """This rank's slice of the whole ``name`` stack."""
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
        out = torch.zeros_like(hidden)
        for expert in range(self.num_experts):
            token, slot = torch.where(top_k_index == expert)
            if token.numel() == 0:
                continue
            gate, up = nn.functional.linear(hidden[token], self.gate_up_proj[expert]).chunk(2, -1)
            y = nn.functional.linear(self.act_fn(gate) * up, self.down_proj[expert])
            out.index_add_(0, token, (y * top_k_weights[token, slot, None]).to(out.dtype))
        return _OutOfGroup.apply(out, self.group) if self.size > 1 else out


def shard_experts(block: nn.Module, experts: Any, mesh: DeviceMesh) -> None:
    """Replace ``block.experts`` by this rank's slice of them over ``mesh`` (1-D)."""
    size = mesh.size()
    if experts.intermediate_dim % size:
        raise ValueError(f"expert width {experts.intermediate_dim} does not split over {size} ranks")
    block.experts = ParallelExperts(experts, mesh.get_group(), mesh.get_local_rank(), size)
