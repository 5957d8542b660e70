"""FlagPerf's other operators (FlagOpen/FlagPerf operation/benchmarks/<op>/main.py), in its
folder names: elementwise math, comparisons, bitwise ops on integers, reductions, dropout,
group norm, mv, outer and triu. ``table.OPS`` takes them in.

Each is the call FlagPerf's main.py times (forward only, as every chipperf operator: FlagPerf
also times the backward of sigmoid, tanh, native_dropout and native_group_norm), checked
against the same call on float64 CPU copies. Inputs are chosen so the check means something:
comparisons get ties, isinf/isnan get infinities/NaNs, rsqrt/reciprocal inputs stay away
from 0, prod multiplies 32 values near 1 per row. Dropout is random: its check restores the
kept values (out x (1 - p) where out != 0, else the input) and requires the dropped share
to be within 0.05 of p.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from chipperf_runtime.operation.op import FLAT, ROWS, Inputs, Op, _t

INTS = ("INT32", "INT16")        # the bitwise ops: FlagPerf measures them in INT16 and INT32
DROP_P = 0.2                     # FlagPerf's torch.nn.Dropout(p=0.2)


def _ints(shape, d, dev, g):  # noqa: ANN001, ANN202
    return torch.randint(-(1 << 15), (1 << 15) - 1, tuple(shape), generator=g).to(dev, d)


def _one_int(shape, d, dev, g):  # noqa: ANN001, ANN202
    return (_ints(shape, d, dev, g),)


def _two_int(shape, d, dev, g):  # noqa: ANN001, ANN202
    return (_ints(shape, d, dev, g), _ints(shape, d, dev, g))


def _one(shape, d, dev, g):  # noqa: ANN001, ANN202
    return (_t(shape, d, dev, g),)


def _two(shape, d, dev, g):  # noqa: ANN001, ANN202
    return (_t(shape, d, dev, g), _t(shape, d, dev, g))


def _tied(shape, d, dev, g):  # noqa: ANN001, ANN202
    """Two tensors equal at about half the positions, so eq/ne/ge/le see ties."""
    a, b = _t(shape, d, dev, g), _t(shape, d, dev, g)
    same = (torch.rand(*shape, generator=g) < 0.5).to(dev)
    return (a, torch.where(same, a, b))


def _special(value: float):  # noqa: ANN202
    """One input with ``value`` (inf, -inf or nan) at about a tenth of the positions."""
    def make(shape, d, dev, g):  # noqa: ANN001, ANN202
        x = _t(shape, d, dev, g)
        mask = (torch.rand(*shape, generator=g) < 0.1).to(dev)
        return (torch.where(mask, torch.full_like(x, value), x),)
    return make


def _infs(shape, d, dev, g):  # noqa: ANN001, ANN202
    x = _special(float("inf"))(shape, d, dev, g)[0]
    negative = (torch.rand(*shape, generator=g) < 0.5).to(dev)
    return (torch.where(negative, -x, x),)     # +inf and -inf


def _away_from_zero(shape, d, dev, g):  # noqa: ANN001, ANN202
    x = _t(shape, d, dev, g, 0.5, 2.0)
    sign = (torch.rand(*shape, generator=g) < 0.5).to(dev)
    return (torch.where(sign, -x, x),)


def _positive(shape, d, dev, g):  # noqa: ANN001, ANN202
    return (_t(shape, d, dev, g, 0.25, 4.0),)


def _near_one(shape, d, dev, g):  # noqa: ANN001, ANN202
    return (_t(shape, d, dev, g, 0.9, 1.1),)


def _some_zero_rows(shape, d, dev, g):  # noqa: ANN001, ANN202
    """Nonzero values with one zero in about half the rows (all() is then False there)."""
    x = _t(shape, d, dev, g, 0.5, 1.5)
    rows = (torch.rand(shape[0], generator=g) < 0.5).to(dev)
    col = int(torch.randint(0, shape[1], (1,), generator=g))
    x[:, col] = torch.where(rows, torch.zeros_like(x[:, col]), x[:, col])
    return (x,)


def _mv(s, d, dev, g):  # noqa: ANN001, ANN202
    m, n = s
    return (_t((m, n), d, dev, g), _t((n,), d, dev, g))


def _outer(s, d, dev, g):  # noqa: ANN001, ANN202
    m, n = s
    return (_t((m,), d, dev, g), _t((n,), d, dev, g))


def _group_norm(s, d, dev, g):  # noqa: ANN001, ANN202
    n, c, hw = s
    return (_t((n, c, hw), d, dev, g), _t((c,), d, dev, g, 0.5, 1.5), _t((c,), d, dev, g))


def _native_group_norm(x, w, b):  # noqa: ANN001, ANN202
    n, c, hw = x.shape
    return torch.native_group_norm(x, w, b, n, c, hw, c // 2, 1e-5)[0]


def _dropout_restored(inputs: Inputs, out: Any) -> torch.Tensor:
    """The input as the kept values give it back, and 1.0 when the dropped share is p +- 0.05."""
    x, out = inputs[0].to(torch.float64), out.detach().cpu().to(torch.float64)
    dropped = out == 0
    restored = torch.where(dropped, x, out * (1 - DROP_P))
    share_ok = abs(float(dropped.double().mean()) - DROP_P) < 0.05
    return torch.cat([restored.flatten(), torch.tensor([1.0 if share_ok else 0.0],
                                                        dtype=torch.float64)])


RC = "rows,cols"
PAIRS = ((256, 1024), (1024, 4096))
GROUPS = ((8, 32, 256), (16, 64, 1024))
# prod: 32 factors per row; an fp16/bf16 product of 128 rounded factors is off by more than
# the check's tolerance on the CPU (measured; torch accumulates it in the input's dtype there)
SHORT_ROWS = ((8192, 32), (65536, 32))

FLAGPERF_OPS: dict[str, Op] = {op.name: op for op in (
    Op("abs", FLAT, _one, torch.abs, exact=True),
    Op("neg", FLAT, _one, torch.neg, exact=True),
    Op("cos", FLAT, _one, torch.cos),
    Op("sin", FLAT, _one, torch.sin),
    Op("tanh", FLAT, _one, torch.tanh),
    Op("sigmoid", FLAT, _one, torch.sigmoid),
    Op("pow", FLAT, _one, lambda x: torch.pow(x, 2), shape_form="n (exponent 2)"),
    Op("rsqrt", FLAT, _positive, torch.rsqrt),
    Op("reciprocal", FLAT, _away_from_zero, torch.reciprocal),
    Op("sub", FLAT, _two, torch.sub),
    Op("rsub", FLAT, _two, torch.rsub, shape_form="n (b - a)"),
    Op("eq", FLAT, _tied, torch.eq, exact=True),
    Op("ne", FLAT, _tied, torch.ne, exact=True),
    Op("ge", FLAT, _tied, torch.ge, exact=True),
    Op("gt", FLAT, _tied, torch.gt, exact=True),
    Op("le", FLAT, _tied, torch.le, exact=True),
    Op("lt", FLAT, _tied, torch.lt, exact=True),
    Op("isinf", FLAT, _infs, torch.isinf, exact=True),
    Op("isnan", FLAT, _special(float("nan")), torch.isnan, exact=True),
    Op("bitwise_and", FLAT, _two_int, torch.bitwise_and, exact=True, dtypes=INTS),
    Op("bitwise_or", FLAT, _two_int, torch.bitwise_or, exact=True, dtypes=INTS),
    Op("bitwise_not", FLAT, _one_int, torch.bitwise_not, exact=True, dtypes=INTS),
    Op("dropout", FLAT, _one, lambda x: F.dropout(x, DROP_P, training=True),
       shape_form=f"n (p={DROP_P})", compared=_dropout_restored),
    Op("native_dropout", FLAT, _one, lambda x: torch.native_dropout(x, DROP_P, True)[0],
       shape_form=f"n (p={DROP_P})", compared=_dropout_restored),
    Op("native_group_norm", GROUPS, _group_norm, _native_group_norm,
       shape_form="N,C,HxW (C/2 groups)"),
    Op("all", ROWS, _some_zero_rows, lambda x: torch.all(x, -1), exact=True, shape_form=RC),
    Op("amax", ROWS, _one, lambda x: torch.amax(x, 1), exact=True, shape_form=RC),
    Op("min", FLAT, _one, torch.min, exact=True, shape_form="n (whole tensor)"),
    Op("prod", SHORT_ROWS, _near_one, lambda x: torch.prod(x, -1),
       shape_form="rows,cols (product per row)"),
    Op("triu", ROWS, _one, torch.triu, exact=True, shape_form=RC),
    Op("mv", PAIRS, _mv, torch.mv, shape_form="M,N (matrix M x N, vector N)"),
    Op("outer", PAIRS, _outer, torch.outer, shape_form="M,N"),
)}
