"""LLaMA-1 and GPT-3 decoders in Paddle dygraph, one pipeline stage of them per rank, with
their projections split over the tensor-parallel ranks (Megatron's column/row split).

Written out in ``paddle.nn`` because PaddleNLP (the library FlagPerf's cases use) does not
install and import beside the image's paddlepaddle 3.3.1 (the case README has the error).

Initial weights do not depend on the layout: every parameter is drawn whole from a numpy
generator seeded by the run's seed and the parameter's name in the whole model, then each
rank keeps its slice, so one rank and any TP x PP x data layout start from the same model.
"""

from __future__ import annotations

import contextlib
import math
import zlib
from typing import Any, Callable, Iterator, Mapping

import numpy as np
import paddle
import paddle.nn.functional as F
from paddle import nn

from chipperf_runtime.training.paddlellm.parallel import Groups, copy_to_tp, reduce_from_tp

INIT_STD = 0.02


class SplitLinear(nn.Layer):
    """A [in, out] linear map split over the TP ranks: "column" keeps out/tp outputs (its
    input is copied to the ranks), "row" keeps in/tp inputs (its outputs are summed over the
    ranks, then the whole bias is added)."""

    def __init__(self, name: str, d_in: int, d_out: int, split: str, groups: Groups,
                 bias: bool, seed: int):
        super().__init__()
        self.split, self.groups, tp, r = split, groups, groups.tp_size, groups.tp_rank
        column = split == "column"
        local = (d_in, d_out // tp) if column else (d_in // tp, d_out)

        def part() -> np.ndarray:
            full = draw(seed, name + ".weight", (d_in, d_out))
            return full[:, r * local[1]:(r + 1) * local[1]] if column \
                else full[r * local[0]:(r + 1) * local[0]]
        self.weight = parameter(local, part, tp_split=tp > 1)
        self.bias = parameter((local[1],), zeros, tp_split=tp > 1 and column) if bias else None

    def forward(self, x: paddle.Tensor) -> paddle.Tensor:
        if self.split == "column":
            return F.linear(copy_to_tp(x, self.groups), self.weight, self.bias)
        y = reduce_from_tp(F.linear(x, self.weight), self.groups)
        return y if self.bias is None else y + self.bias


def draw(seed: int, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """The whole parameter ``name`` ~ N(0, INIT_STD), the same on every rank and layout."""
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    return rng.normal(0.0, INIT_STD, size=shape).astype(np.float32)


_declare_only = [False]


@contextlib.contextmanager
def declared_only() -> Iterator[None]:
    """Build under ``paddle.LazyGuard`` without drawing any weight: every parameter is
    declared (shape and count) and none is allocated, so a full-size model can be counted on
    a small machine."""
    _declare_only[0] = True
    try:
        with paddle.LazyGuard():
            yield
    finally:
        _declare_only[0] = False


def zeros(shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape, np.float32)


def ones(shape: tuple[int, ...]) -> np.ndarray:
    return np.ones(shape, np.float32)


def parameter(shape: tuple[int, ...], make: Callable[..., np.ndarray],
              tp_split: bool) -> paddle.Tensor:
    """A trainable fp32 parameter of ``shape`` holding ``make()`` (or ``make(shape)`` for
    ``zeros``/``ones``); ``tp_split`` marks a per-TP-rank slice (the gradient norm sums those
    over the TP group)."""
    if _declare_only[0]:
        init: Any = nn.initializer.Constant(0.0)
    else:
        value = make(shape) if make in (zeros, ones) else make()
        init = nn.initializer.Assign(value)
    p = paddle.create_parameter(list(shape), "float32", default_initializer=init)
    p.tp_split = tp_split
    return p


class Norm(nn.Layer):
    """RMSNorm (llama) or LayerNorm with bias (gpt), replicated on the TP ranks."""

    def __init__(self, family: str, width: int, eps: float):
        super().__init__()
        self.family, self.eps = family, eps
        self.weight = parameter((width,), ones, tp_split=False)
        self.bias = parameter((width,), zeros, False) if family == "gpt" else None

    def forward(self, x: paddle.Tensor) -> paddle.Tensor:
        if self.family == "gpt":
            return F.layer_norm(x, x.shape[-1:], self.weight, self.bias, self.eps)
        variance = x.astype("float32").pow(2).mean(-1, keepdim=True)
        return (x * paddle.rsqrt(variance + self.eps)).astype(x.dtype) * self.weight


def rotary(x: paddle.Tensor, cos: paddle.Tensor, sin: paddle.Tensor) -> paddle.Tensor:
    """Rotary position embedding on [b, s, heads, d] (rotate-half form)."""
    half = x.shape[-1] // 2
    rotated = paddle.concat([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin


def rotary_tables(seq_len: int, dim: int) -> tuple[paddle.Tensor, paddle.Tensor]:
    inv = 1.0 / (10000 ** (np.arange(0, dim, 2, dtype=np.float64) / dim))
    angles = np.outer(np.arange(seq_len), inv)
    angles = np.concatenate([angles, angles], axis=-1)[None, :, None, :]
    return (paddle.to_tensor(np.cos(angles).astype(np.float32)),
            paddle.to_tensor(np.sin(angles).astype(np.float32)))


class Attention(nn.Layer):
    def __init__(self, prefix: str, family: str, shape: Mapping[str, Any], groups: Groups,
                 seed: int):
        super().__init__()
        h, heads = shape["hidden_size"], shape["num_attention_heads"]
        self.family, self.local_heads, self.head_dim = family, heads // groups.tp_size, h // heads
        bias = family == "gpt"
        self.q, self.k, self.v = (SplitLinear(f"{prefix}.{n}", h, h, "column", groups, bias, seed)
                                  for n in ("q", "k", "v"))
        self.o = SplitLinear(f"{prefix}.o", h, h, "row", groups, bias, seed)

    def forward(self, x: paddle.Tensor, rope: tuple[paddle.Tensor, paddle.Tensor] | None
                ) -> paddle.Tensor:
        b, s = x.shape[0], x.shape[1]
        q, k, v = (p(x).reshape([b, s, self.local_heads, self.head_dim])
                   for p in (self.q, self.k, self.v))
        if rope is not None:
            cos, sin = rope[0][:, :s], rope[1][:, :s]
            q, k = rotary(q, cos, sin), rotary(k, cos, sin)
        q, k, v = (t.transpose([0, 2, 1, 3]) for t in (q, k, v))
        scores = paddle.matmul(q, k, transpose_y=True) / math.sqrt(self.head_dim)
        mask = paddle.triu(paddle.full([s, s], float("-inf"), scores.dtype), diagonal=1)
        out = paddle.matmul(F.softmax(scores + mask, axis=-1), v)
        return self.o(out.transpose([0, 2, 1, 3]).reshape([b, s, -1]))


class Mlp(nn.Layer):
    """SwiGLU (llama: gate, up, down) or GELU (gpt: fc1, fc2)."""

    def __init__(self, prefix: str, family: str, shape: Mapping[str, Any], groups: Groups,
                 seed: int):
        super().__init__()
        h, i, bias = shape["hidden_size"], shape["intermediate_size"], family == "gpt"
        self.family = family
        self.up = SplitLinear(f"{prefix}.up", h, i, "column", groups, bias, seed)
        self.gate = SplitLinear(f"{prefix}.gate", h, i, "column", groups, False, seed) \
            if family == "llama" else None
        self.down = SplitLinear(f"{prefix}.down", i, h, "row", groups, bias, seed)

    def forward(self, x: paddle.Tensor) -> paddle.Tensor:
        if self.gate is not None:
            return self.down(F.silu(self.gate(x)) * self.up(x))
        return self.down(F.gelu(self.up(x)))


class Block(nn.Layer):
    """One pre-norm decoder layer."""

    def __init__(self, index: int, family: str, shape: Mapping[str, Any], groups: Groups,
                 seed: int):
        super().__init__()
        eps = shape.get("rms_norm_eps", shape.get("layer_norm_eps", 1e-5))
        prefix = f"layers.{index}"
        self.norm1, self.norm2 = Norm(family, shape["hidden_size"], eps), \
            Norm(family, shape["hidden_size"], eps)
        self.attention = Attention(f"{prefix}.attention", family, shape, groups, seed)
        self.mlp = Mlp(f"{prefix}.mlp", family, shape, groups, seed)

    def forward(self, x: paddle.Tensor, rope: Any) -> paddle.Tensor:
        x = x + self.attention(self.norm1(x), rope)
        return x + self.mlp(self.norm2(x))


class Stage(nn.Layer):
    """The layers one pipeline stage holds: the embeddings on the first, an equal slice of
    the decoder layers, the final norm and the lm_head (replicated on the TP ranks) on the
    last. ``forward`` maps token ids (first stage) or hidden states to hidden states (or
    logits on the last stage)."""

    def __init__(self, family: str, shape: Mapping[str, Any], groups: Groups, seed: int):
        super().__init__()
        h, v, layers = shape["hidden_size"], shape["vocab_size"], shape["num_hidden_layers"]
        per_stage = layers // groups.pp_size
        self.first, self.last = groups.pp_rank == 0, groups.pp_rank == groups.pp_size - 1
        self.family, self.recompute = family, False
        first_layer = groups.pp_rank * per_stage
        self.blocks = nn.LayerList([Block(i, family, shape, groups, seed)
                                    for i in range(first_layer, first_layer + per_stage)])
        if self.first:
            self.embed_tokens = parameter((v, h), lambda: draw(seed, "embed_tokens", (v, h)),
                                          False)
            positions = (shape["max_position_embeddings"], h)
            self.embed_positions = parameter(
                positions, lambda: draw(seed, "embed_positions", positions), False) \
                if family == "gpt" else None
        if self.last:
            eps = shape.get("rms_norm_eps", shape.get("layer_norm_eps", 1e-5))
            self.final_norm = Norm(family, h, eps)
            self.lm_head = parameter((h, v), lambda: draw(seed, "lm_head", (h, v)), False)
        self.rope = rotary_tables(shape["max_position_embeddings"], h // shape[
            "num_attention_heads"]) if family == "llama" else None

    def forward(self, x: paddle.Tensor) -> paddle.Tensor:
        if self.first:
            x = self.embed(x)
        for block in self.blocks:
            x = self.run_block(block, x)
        if self.last:
            x = paddle.matmul(self.final_norm(x), self.lm_head)
        return x

    def embed(self, ids: paddle.Tensor) -> paddle.Tensor:
        x = F.embedding(ids, self.embed_tokens)
        if self.embed_positions is not None:
            x = x + self.embed_positions[:ids.shape[1]].unsqueeze(0)
        return x

    def run_block(self, block: nn.Layer, x: paddle.Tensor) -> paddle.Tensor:
        if self.recompute and self.training:
            from paddle.distributed.fleet.utils import recompute
            return recompute(block, x, self.rope)
        return block(x, self.rope)


def causal_lm_loss(logits: paddle.Tensor, labels: paddle.Tensor) -> paddle.Tensor:
    """Mean next-token cross entropy (fp32) over every position."""
    return F.cross_entropy(logits.astype("float32").reshape([-1, logits.shape[-1]]),
                           labels.reshape([-1, 1]))


def count_parameters(stage: Stage) -> int:
    """This rank's parameters (its stage, its TP slices)."""
    return sum(int(np.prod(p.shape)) for p in stage.parameters())
