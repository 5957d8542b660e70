"""Correctness of one call against the float64 CPU reference, with per-dtype tolerances.

An output passes when every element satisfies |out - ref| <= atol x scale + rtol x |ref|,
where scale = max(1, max |ref|) (so reductions and long sums are held to the output's own
magnitude). Outputs that are copies of input values (gather, sort, topk, ...), and every
output of integer inputs (bitwise_and, ...), must match exactly.
"""

from __future__ import annotations

from typing import Any

import torch

from chipperf_runtime.operation.table import Inputs, Op

# dtype -> (rtol, atol): about 8x the unit roundoff of the dtype's output rounding
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-10, 1e-12),
    torch.float32: (1e-5, 1e-5),
    torch.float16: (8e-3, 2e-3),
    torch.bfloat16: (6.4e-2, 1.6e-2),
}


def reference_inputs(inputs: Inputs) -> Inputs:
    """float64 CPU copies of the floating-point inputs (index tensors kept as they are)."""
    return tuple(x.detach().to("cpu", torch.float64) if torch.is_floating_point(x)
                 else x.detach().cpu() for x in inputs)


def compare(op: Op, inputs: Inputs, out: Any, dtype: torch.dtype) -> dict[str, Any]:
    ref_inputs = reference_inputs(inputs)
    ref = op.call(*ref_inputs)
    got = out.detach().cpu()
    if op.compared is not None:
        ref, got = op.compared(ref_inputs, ref), op.compared(ref_inputs, got)
    if tuple(got.shape) != tuple(ref.shape):
        return {"passed": False, "why": f"shape {tuple(got.shape)} != {tuple(ref.shape)}"}
    got, ref = got.to(torch.float64), ref.to(torch.float64)
    err = (got - ref).abs()
    rtol, atol = TOLERANCES.get(dtype, (0.0, 0.0)) if not op.exact else (0.0, 0.0)
    scale = max(1.0, float(ref.abs().max())) if ref.numel() else 1.0
    bound = atol * scale + rtol * ref.abs()
    worst = float((err - bound).max()) if err.numel() else 0.0
    finite = bool(torch.isfinite(got).all())
    return {"passed": finite and worst <= 0, "max_abs_err": float(err.max()) if err.numel() else 0.0,
            "rtol": rtol, "atol": atol, "scale": scale, "finite": finite,
            "exact": op.exact}
