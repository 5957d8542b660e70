"""The operators: inputs per shape, the call, and the FLOPs of a call.

Each ``Op`` builds its inputs for one shape of its shape set, calls the operator through
``torch`` (``F`` is ``torch.nn.functional``), and counts FLOPs for the compute-bound ones
(rated in TFLOP/s); the others are rated in GB/s of the bytes their inputs and output
hold. The float64 reference is the same call on float64 copies of the inputs on the CPU.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F

from chipperf_runtime.operation.flagperf_ops import FLAGPERF_OPS
from chipperf_runtime.operation.op import FLAT, ROWS, Inputs, Op, Shape, _t  # noqa: F401 (check.py: Inputs)


def _idx(high: int, shape: Sequence[int], device: torch.device, g: torch.Generator
         ) -> torch.Tensor:
    return torch.randint(0, high, tuple(shape), generator=g).to(device)


def _one(shape, d, dev, g):  # noqa: ANN001, ANN202
    return (_t(shape, d, dev, g),)


def _two(shape, d, dev, g):  # noqa: ANN001, ANN202
    return (_t(shape, d, dev, g), _t(shape, d, dev, g))


def _mm(s, d, dev, g):  # noqa: ANN001, ANN202
    m, k, n = s
    return (_t((m, k), d, dev, g), _t((k, n), d, dev, g))


def _bmm(s, d, dev, g):  # noqa: ANN001, ANN202
    b, m, k, n = s
    return (_t((b, m, k), d, dev, g), _t((b, k, n), d, dev, g))


def _addmm(s, d, dev, g):  # noqa: ANN001, ANN202
    m, k, n = s
    return (_t((n,), d, dev, g), _t((m, k), d, dev, g), _t((k, n), d, dev, g))


def _linear(s, d, dev, g):  # noqa: ANN001, ANN202
    m, k, n = s
    return (_t((m, k), d, dev, g), _t((n, k), d, dev, g), _t((n,), d, dev, g))


def _conv(s, d, dev, g):  # noqa: ANN001, ANN202
    n, c, h, w, o, k = s
    return (_t((n, c, h, w), d, dev, g), _t((o, c, k, k), d, dev, g))


def _attn(s, d, dev, g):  # noqa: ANN001, ANN202
    b, h, n, e = s
    return tuple(_t((b, h, n, e), d, dev, g) for _ in range(3))


def _norm(s, d, dev, g):  # noqa: ANN001, ANN202
    return (_t(s, d, dev, g), _t(s[-1:], d, dev, g, 0.5, 1.5), _t(s[-1:], d, dev, g))


def _group(s, d, dev, g):  # noqa: ANN001, ANN202
    return (_t(s, d, dev, g), _t(s[1:2], d, dev, g, 0.5, 1.5), _t(s[1:2], d, dev, g))


def _div(s, d, dev, g):  # noqa: ANN001, ANN202
    return (_t(s, d, dev, g), _t(s, d, dev, g, 0.5, 2.0))


def _xent(s, d, dev, g):  # noqa: ANN001, ANN202
    n, c = s
    return (_t((n, c), d, dev, g, -4, 4), _idx(c, (n,), dev, g))


def _embed(s, d, dev, g):  # noqa: ANN001, ANN202
    v, e, n = s
    return (_idx(v, (n,), dev, g), _t((v, e), d, dev, g))


def _rows(s, d, dev, g):  # noqa: ANN001, ANN202
    r, c, k = s
    return (_t((r, c), d, dev, g), _idx(r, (k,), dev, g))


def _cols(s, d, dev, g):  # noqa: ANN001, ANN202
    r, c, k = s
    return (_t((r, c), d, dev, g), _idx(c, (r, k), dev, g))


def _scatter(s, d, dev, g):  # noqa: ANN001, ANN202
    r, c, k = s
    index = torch.stack([torch.randperm(c, generator=g)[:k] for _ in range(r)]).to(dev)
    return (_t((r, c), d, dev, g), index, _t((r, k), d, dev, g))


MNK = "M,K,N"
GEMM = ((256, 256, 256), (512, 512, 512))

OPS: dict[str, Op] = {op.name: op for op in (
    Op("mm", GEMM, _mm, torch.mm, lambda s: 2.0 * s[0] * s[1] * s[2], shape_form=MNK),
    Op("bmm", ((8, 128, 128, 128), (8, 256, 256, 256)), _bmm, torch.bmm,
       lambda s: 2.0 * s[0] * s[1] * s[2] * s[3], shape_form="B,M,K,N"),
    Op("addmm", GEMM, _addmm, torch.addmm, lambda s: 2.0 * s[0] * s[1] * s[2] + s[0] * s[2],
       shape_form=MNK),
    Op("linear", GEMM, _linear, F.linear, lambda s: 2.0 * s[0] * s[1] * s[2] + s[0] * s[2],
       shape_form="M,K(in),N(out)"),
    Op("conv2d", ((4, 16, 32, 32, 32, 3), (8, 32, 32, 32, 64, 3)), _conv,
       lambda x, w: F.conv2d(x, w, padding=w.shape[-1] // 2),
       lambda s: 2.0 * s[0] * s[4] * s[2] * s[3] * s[1] * s[5] * s[5],
       shape_form="N,C,H,W,O,kernel"),
    Op("scaled_dot_product_attention", ((2, 4, 128, 64), (2, 8, 256, 64)), _attn,
       F.scaled_dot_product_attention, lambda s: 4.0 * s[0] * s[1] * s[2] * s[2] * s[3],
       shape_form="B,heads,seq,head_dim"),
    Op("softmax", ROWS, _one, lambda x: torch.softmax(x, -1), shape_form="rows,cols"),
    Op("log_softmax", ROWS, _one, lambda x: torch.log_softmax(x, -1), shape_form="rows,cols"),
    Op("layer_norm", ROWS, _norm, lambda x, w, b: F.layer_norm(x, x.shape[-1:], w, b),
       shape_form="rows,cols"),
    Op("rms_norm", ROWS, lambda s, d, dev, g: _norm(s, d, dev, g)[:2],
       lambda x, w: F.rms_norm(x, x.shape[-1:], w, eps=1e-6), shape_form="rows,cols"),
    Op("group_norm", ((8, 32, 16, 16), (16, 64, 32, 32)), _group,
       lambda x, w, b: F.group_norm(x, 8, w, b), shape_form="N,C,H,W (8 groups)"),
    Op("gelu", FLAT, _one, F.gelu),
    Op("silu", FLAT, _one, F.silu),
    Op("relu", FLAT, _one, F.relu),
    Op("add", FLAT, _two, torch.add),
    Op("mul", FLAT, _two, torch.mul),
    Op("div", FLAT, _div, torch.div),
    Op("exp", FLAT, _one, torch.exp),
    Op("sum", ROWS, _one, lambda x: torch.sum(x, -1), shape_form="rows,cols"),
    Op("mean", ROWS, _one, lambda x: torch.mean(x, -1), shape_form="rows,cols"),
    Op("max", ROWS, _one, lambda x: torch.amax(x, -1), exact=True, shape_form="rows,cols"),
    Op("argmax", ROWS, _one, lambda x: torch.argmax(x, -1), exact=True, shape_form="rows,cols",
       compared=lambda inputs, out: inputs[0].gather(-1, out.unsqueeze(-1))),
    Op("cross_entropy", ((256, 1000), (1024, 4000)), _xent, F.cross_entropy,
       shape_form="batch,classes"),
    Op("embedding", ((4096, 256, 1024), (32768, 512, 8192)), _embed, F.embedding, exact=True,
       shape_form="vocab,dim,tokens"),
    Op("index_select", ((4096, 256, 1024), (16384, 512, 8192)), _rows,
       lambda x, i: torch.index_select(x, 0, i), exact=True, shape_form="rows,cols,picked"),
    Op("gather", ((256, 1024, 256), (1024, 4096, 1024)), _cols,
       lambda x, i: torch.gather(x, 1, i), exact=True, shape_form="rows,cols,picked per row"),
    Op("scatter", ((256, 1024, 256), (1024, 4096, 1024)), _scatter,
       lambda x, i, src: torch.scatter(x, 1, i, src), exact=True,
       shape_form="rows,cols,written per row"),
    Op("cumsum", ROWS, _one, lambda x: torch.cumsum(x, -1), shape_form="rows,cols"),
    Op("topk", ROWS, _one, lambda x: torch.topk(x, 16, -1).values, exact=True,
       shape_form="rows,cols (k=16)"),
    Op("sort", ROWS, _one, lambda x: torch.sort(x, -1).values, exact=True,
       shape_form="rows,cols"),
)}
OPS.update(FLAGPERF_OPS)     # FlagPerf's other operators
