"""Expert parallelism for transformers' mixture-of-experts blocks (MixtralExperts: every
expert's SwiGLU weights stacked in ``gate_up_proj [E, 2I, H]`` and ``down_proj [E, H, I]``).

The tensor-parallel ranks of a group see the same tokens (attention's row-parallel output is
all-reduced), so each keeps ``E / tp`` whole experts and computes only the routed tokens
that go to them; the partial outputs are summed over the group (Megatron's "f"/"g" pair:
identity forward and all-reduce backward into the region, the reverse out of it). The
router stays replicated.
"""

from __future__ import annotations

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


class LocalExperts(nn.Module):
    """This rank's experts ``first .. first + count - 1`` of a MixtralExperts."""

    def __init__(self, full: nn.Module, group: tdist.ProcessGroup, rank: int, size: int):
        super().__init__()
        self.num_experts = full.num_experts
        self.count = full.num_experts // size
        self.first = rank * self.count
        self.group, self.size = group, size
        part = slice(self.first, self.first + self.count)
        self.gate_up_proj = nn.Parameter(full.gate_up_proj.detach()[part].clone())
        self.down_proj = nn.Parameter(full.down_proj.detach()[part].clone())
        self.act_fn = full.act_fn

    def forward(self, hidden: torch.Tensor, top_k_index: torch.Tensor,
                top_k_weights: torch.Tensor) -> torch.Tensor:
        hidden = _IntoGroup.apply(hidden, self.group)
        top_k_weights = _IntoGroup.apply(top_k_weights, self.group)
        local = top_k_index - self.first
        out = torch.zeros_like(hidden)
        for expert in range(self.count):
            token, slot = torch.where(local == expert)
            if token.numel() == 0:
                continue
            gate, up = nn.functional.linear(hidden[token], self.gate_up_proj[expert]).chunk(2, -1)
            y = nn.functional.linear(self.act_fn(gate) * up, self.down_proj[expert])
            out.index_add_(0, token, (y * top_k_weights[token, slot, None]).to(out.dtype))
        return _OutOfGroup.apply(out, self.group) if self.size > 1 else out


def shard_experts(block: nn.Module, experts: nn.Module, mesh: DeviceMesh) -> None:
    """Replace ``block.experts`` by this rank's share of them over ``mesh`` (1-D)."""
    size = mesh.size()
    if experts.num_experts % size:
        raise ValueError(f"{experts.num_experts} experts do not split over {size} ranks")
    block.experts = LocalExperts(experts, mesh.get_group(), mesh.get_local_rank(), size)
