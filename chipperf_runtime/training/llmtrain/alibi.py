"""Baichuan2-13B's block on transformers' Llama classes: ALiBi in place of RoPE and the
normalised lm_head ("NormHead"). Baichuan2-13B's weights have Llama's shapes exactly
(its fused ``W_pack`` is Q, K and V stacked; SwiGLU; RMSNorm; untied head), so
``LlamaForCausalLM`` holds them; what differs is computed here:

- positions: no rotary embedding (``NoRotary`` gives cos 1, sin 0: the identity rotation)
  and an additive ALiBi bias on the attention scores, ``slope_h * (j - i)`` for key ``j`` and
  query ``i`` (Press et al.; Baichuan's ``_gen_alibi_mask``), with Baichuan's slopes for a head
  count that is not a power of two (``alibi_slopes``), computed in the attention function
  registered as ``ATTENTION`` (``torch.nn.functional.scaled_dot_product_attention`` with the
  bias as its float mask);
- the head: ``NormHead`` scales each lm_head row to unit L2 norm before the matmul
  (Baichuan 2 report, section 2.6), no extra parameters.

Both are elementwise: the matmul FLOPs are Llama's (``llmtrain.arch``).
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.distributed.tensor import DTensor

ATTENTION = "alibi_sdpa"


def alibi_slopes(heads: int) -> torch.Tensor:
    """ALiBi's per-head slopes: 2^(-8 (h+1) / n) for n a power of two; otherwise those of the
    power of two below and every other slope of the one above (Baichuan's ``_get_interleave``)."""
    def power_of_two(n: int) -> list[float]:
        start = 2.0 ** (-(2.0 ** -(math.log2(n) - 3)))
        return [start ** (i + 1) for i in range(n)]

    if math.log2(heads).is_integer():
        return torch.tensor(power_of_two(heads))
    lower = 2 ** math.floor(math.log2(heads))
    return torch.tensor(power_of_two(lower) + power_of_two(2 * lower)[0::2][:heads - lower])


def local_slopes(total: int, local: int, tp_rank: int) -> torch.Tensor:
    """The slopes of the ``local`` heads a tensor-parallel rank holds: the column split gives
    rank r the contiguous heads r x local .. (r + 1) x local - 1 of the ``total``."""
    return alibi_slopes(total)[tp_rank * local:(tp_rank + 1) * local]


def alibi_bias(slopes: torch.Tensor, q_len: int, k_len: int, device: torch.device,
               dtype: torch.dtype) -> torch.Tensor:
    """[heads, q_len, k_len]: slope x (key position - query position), queries at the end."""
    q = torch.arange(k_len - q_len, k_len, device=device)
    k = torch.arange(k_len, device=device)
    distance = (k[None, :] - q[:, None]).to(torch.float32)
    return (slopes.to(device)[:, None, None] * distance).to(dtype)


def _tp_rank(module: nn.Module) -> int:
    """This rank's place in the tensor-parallel group that splits ``module``'s Q heads (0
    when they are not split)."""
    weight = getattr(getattr(module, "q_proj", None), "weight", None)
    return weight.device_mesh.get_local_rank() if isinstance(weight, DTensor) else 0


def alibi_attention(module: nn.Module, query: torch.Tensor, key: torch.Tensor,
                    value: torch.Tensor, attention_mask: torch.Tensor | None,
                    scaling: float | None = None, dropout: float = 0.0,
                    **_: Any) -> tuple[torch.Tensor, None]:
    """transformers' attention-function signature ([batch, heads, seq, dim] in, [batch, seq,
    heads, dim] out): causal SDPA with the ALiBi bias added to the scores. Under tensor
    parallelism ``query`` holds this rank's heads: their slopes are the model's (``config``)
    slice for the rank."""
    heads, q_len, k_len = query.shape[1], query.shape[2], key.shape[2]
    if key.shape[1] != heads:                       # grouped K/V heads
        repeat = heads // key.shape[1]
        key, value = key.repeat_interleave(repeat, 1), value.repeat_interleave(repeat, 1)
    total = int(getattr(getattr(module, "config", None), "num_attention_heads", heads))
    slopes = local_slopes(total, heads, _tp_rank(module))
    bias = alibi_bias(slopes, q_len, k_len, query.device, query.dtype)[None]
    bias = bias + _blocked(attention_mask, q_len, k_len, query)
    out = F.scaled_dot_product_attention(query, key, value, attn_mask=bias, scale=scaling,
                                         dropout_p=dropout if module.training else 0.0)
    return out.transpose(1, 2).contiguous(), None


def _blocked(mask: torch.Tensor | None, q_len: int, k_len: int,
             query: torch.Tensor) -> torch.Tensor:
    """The additive mask: -inf where a query may not see a key (causal when ``mask`` is None,
    else transformers' boolean or additive mask)."""
    low = torch.finfo(query.dtype).min
    if mask is None:
        allowed = torch.ones(q_len, k_len, dtype=torch.bool, device=query.device).tril(k_len - q_len)
        return torch.zeros((), dtype=query.dtype, device=query.device).masked_fill(~allowed, low)
    if mask.dtype == torch.bool:
        return torch.zeros(mask.shape, dtype=query.dtype, device=query.device).masked_fill(~mask, low)
    return mask.to(query.dtype)


def register() -> None:
    """Make ``ATTENTION`` an ``attn_implementation`` transformers knows (with SDPA's masks)."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(ATTENTION, alibi_attention)
    AttentionMaskInterface.register(ATTENTION, sdpa_mask)


class NoRotary(nn.Module):
    """In place of a Llama model's ``rotary_emb``: cos 1 and sin 0, the identity rotation."""

    def __init__(self, config: Any = None) -> None:
        super().__init__()
        self.head_dim = int(getattr(config, "head_dim", None)
                            or config.hidden_size // config.num_attention_heads)

    def forward(self, x: torch.Tensor, position_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        shape = (*position_ids.shape, self.head_dim)
        return (torch.ones(shape, dtype=x.dtype, device=x.device),
                torch.zeros(shape, dtype=x.dtype, device=x.device))


class NormHead(nn.Linear):
    """Baichuan 2's lm_head: each output row normalised to unit L2 norm, then the matmul."""

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return F.linear(hidden, F.normalize(self.weight, dim=-1))


def baichuan2(model: Any) -> Any:
    """A (meta-built) LlamaForCausalLM turned into Baichuan2-13B's computation: no rotary
    embedding, NormHead (the same weight shape). Its config's attention must be ``ATTENTION``."""
    if model.config._attn_implementation != ATTENTION:
        raise ValueError(f"baichuan2 needs attn_implementation {ATTENTION!r}, not "
                         f"{model.config._attn_implementation!r}")
    model.model.rotary_emb = NoRotary(model.config)
    head = model.lm_head
    with torch.device(head.weight.device):
        model.lm_head = NormHead(head.in_features, head.out_features, bias=False)
    return model
