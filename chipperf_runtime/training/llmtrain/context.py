"""Context parallelism for the LLM cases: each rank of a "cp" group holds part of every
sequence, and attention all-gathers the keys and values of the whole sequence (the all-gather
variant of context parallelism that Llama 3 was trained with; Megatron-Core's and PyTorch's
ring attention pass the same blocks around a ring instead).

Why not PyTorch's own: ``torch.distributed.tensor.experimental.context_parallel`` (torch 2.13)
replaces only the GPU kernels of scaled_dot_product_attention (``_scaled_dot_product_flash_
attention``, ``..._efficient_attention``, ``..._cudnn_attention``); on the CPU SDPA dispatches
to ``_scaled_dot_product_flash_attention_for_cpu``, which DTensor has no sharding rule for
("Operator aten._scaled_dot_product_flash_attention_for_cpu.default does not have a sharding
strategy registered", two gloo ranks, seen in this repository's probe). So the cases attend
with ``attend`` below, registered as a transformers attention function, on every device.

Load balance (the field's head-tail order: Megatron-Core's, PyTorch's ``_HeadTailLoadBalancer``):
the sequence is cut into ``2 x cp`` equal chunks and rank ``r`` holds chunks ``r`` and
``2 cp - 1 - r``, so under the causal mask every rank has the same amount of attention to do.
(SDPA with a boolean mask computes the masked scores too, so here every rank does the same
work in any order; the order pays off with kernels that skip masked blocks.) Positions
(rotary) are those of the chunks in the whole sequence; the mask compares them.

Gradients: a key or value is used by the queries of every rank; the all-gather's backward sums
its gradient over the group (a reduce-scatter). Each rank's loss is the mean over its tokens,
and FSDP2 averages gradients over data parallel x context parallel, so the step is one
process's step on the whole sequence (every rank holds the same number of tokens).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

import torch
import torch.distributed as tdist
from torch import nn
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward

# the attn_implementation name the model config gets under context parallelism
ATTENTION = "chipperf_context_parallel"


def chunk_positions(seq_len: int, size: int, rank: int) -> torch.Tensor:
    """The positions of the whole sequence that ``rank`` of ``size`` holds (module doc)."""
    chunk = seq_len // (2 * size)
    head, tail = rank, 2 * size - 1 - rank
    return torch.cat([torch.arange(head * chunk, (head + 1) * chunk),
                      torch.arange(tail * chunk, (tail + 1) * chunk)])


def _gather_into(output: torch.Tensor, local: torch.Tensor, group: tdist.ProcessGroup) -> None:
    gather = getattr(tdist, "all_gather_single", None) or tdist.all_gather_into_tensor
    gather(output, local, group=group)


def _reduce_scatter_into(output: torch.Tensor, full: torch.Tensor,
                         group: tdist.ProcessGroup) -> None:
    scatter = getattr(tdist, "reduce_scatter_single", None) or tdist.reduce_scatter_tensor
    scatter(output, full, group=group)


class _GatherRows(torch.autograd.Function):
    """Every rank's rows (dim 0) concatenated in rank order; backward: the gradient summed over
    the group, this rank's rows of it."""

    @staticmethod
    def forward(ctx, local: torch.Tensor, group: tdist.ProcessGroup,  # type: ignore[override]
                size: int) -> torch.Tensor:
        ctx.group, ctx.size = group, size
        local = local.contiguous()
        out = local.new_empty((size * local.shape[0], *local.shape[1:]))
        _gather_into(out, local, group)
        return out

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None, None]:  # type: ignore[override]
        grad = grad.contiguous()
        out = grad.new_empty((grad.shape[0] // ctx.size, *grad.shape[1:]))
        _reduce_scatter_into(out, grad, ctx.group)
        return out, None, None


def gather_rows(local: torch.Tensor, group: tdist.ProcessGroup, size: int) -> torch.Tensor:
    return _GatherRows.apply(local, group, size)


@dataclass(frozen=True)
class ContextShard:
    """This rank's place in its context-parallel group."""

    group: tdist.ProcessGroup
    size: int
    rank: int

    def positions(self, seq_len: int, device: torch.device) -> torch.Tensor:
        return chunk_positions(seq_len, self.size, self.rank).to(device)

    def take(self, inputs: torch.Tensor, targets: torch.Tensor
             ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """[batch, seq] inputs and targets -> this rank's [batch, seq / cp] of each and their
        [1, seq / cp] positions."""
        where = self.positions(inputs.shape[1], inputs.device)
        return inputs.index_select(1, where), targets.index_select(1, where), where.unsqueeze(0)

    def key_positions(self, local_len: int, device: torch.device) -> torch.Tensor:
        """The positions of the gathered keys, in the gather's (rank) order."""
        seq_len = local_len * self.size
        return torch.cat([chunk_positions(seq_len, self.size, r)
                          for r in range(self.size)]).to(device)

    def gather_sequence(self, x: torch.Tensor) -> torch.Tensor:
        """[batch, heads, seq / cp, dim] on each rank -> [batch, heads, seq, dim] (rank order)."""
        rows = gather_rows(x.permute(2, 0, 1, 3), self.group, self.size)
        return rows.permute(1, 2, 0, 3)

    def mean(self, value: torch.Tensor) -> torch.Tensor:
        """A detached figure averaged over the group (each rank's share is the same size)."""
        value = value.detach().float().clone()
        tdist.all_reduce(value, group=self.group)
        return value / self.size


def attention(shard: ContextShard) -> Callable[..., tuple[torch.Tensor, None]]:
    """A transformers attention function (``AttentionInterface``) over the group: this rank's
    queries against the whole sequence's keys and values, causal by position."""

    def attend(module: nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
               attention_mask: Any, dropout: float = 0.0, scaling: float | None = None,
               **kwargs: Any) -> tuple[torch.Tensor, None]:
        local = query.shape[2]
        keys, values = shard.gather_sequence(key), shard.gather_sequence(value)
        q_at = shard.positions(local * shard.size, query.device)
        k_at = shard.key_positions(local, query.device)
        causal = (q_at[:, None] >= k_at[None, :])[None, None]
        return sdpa_attention_forward(module, query, keys, values, causal, dropout=dropout,
                                      scaling=scaling, is_causal=False)

    return attend


def attention_name(attention: str, layout: Any) -> str:
    """The attention a run computes, as its execution facts name it."""
    if layout.context_parallel == 1:
        return attention
    return f"{attention} over all-gathered keys and values ({ATTENTION}, llmtrain/context.py)"


def register(shard: ContextShard) -> str:
    """Register this process's context-parallel attention; the name for attn_implementation."""
    AttentionInterface.register(ATTENTION, attention(shard))
    return ATTENTION


def gathered_router_logits(router_logits: tuple[torch.Tensor, ...],
                           shard: ContextShard) -> tuple[torch.Tensor, ...]:
    """Each layer's router logits of the whole sequence (a mixture-of-experts load-balancing
    loss is a product of means over every token, not a mean of the ranks' own)."""
    return tuple(gather_rows(logits, shard.group, shard.size) for logits in router_logits)


def context_shard(mesh: Any, layout: Any) -> ContextShard | None:
    """This rank's ContextShard on ``mesh["cp"]`` (None without context parallelism)."""
    if mesh is None or layout.context_parallel == 1:
        return None
    cp = mesh["cp"]
    return ContextShard(cp.get_group(), cp.size(), cp.get_local_rank())


def load_balancing_loss(config: Any, router_logits: tuple[torch.Tensor, ...],
                        shard: ContextShard) -> torch.Tensor:
    """The model's own mixture-of-experts load-balancing loss (transformers'
    ``load_balancing_loss_func`` of its modelling module) over the whole sequence."""
    kind = config.model_type
    module = importlib.import_module(f"transformers.models.{kind}.modeling_{kind}")
    total = getattr(config, "num_local_experts", None) or config.num_experts
    return module.load_balancing_loss_func(gathered_router_logits(router_logits, shard), total,
                                           config.num_experts_per_tok, None)
