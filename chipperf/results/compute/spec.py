"""What a base/ or operation/ FINISHED says beyond the common keys (docs/base-and-operation.md).

``spec_fields`` reads the share of the chip's spec-sheet peak (or why there is none), the
method (sizes, warm-up, iterations, timing), base/'s bare torch loop timed beside the figure
(``reference``) and, on a host CPU, numpy's GEMM (``numpy_reference``) with the ratio to
each, and operation/'s per-call latency, correctness against
float64 and figures per shape. Each absent figure gets its reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chipperf.results.compute.inference import latency
from chipperf.results.compute.schema import ShapeResult
from chipperf.suites import suite_of

# Units that count the same thing: 1e12 operations per second (base/ names INT8 GEMMs in
# TFLOP/s like the others; the bare loop calls them TOPS).
SAME_UNIT = {"TOPS": "TFLOP/s"}


def spec_fields(value: Mapping[str, Any], suite: str | None, reasons: dict[str, str]) -> dict[str, Any]:
    out = _share(value, reasons)
    method = value.get("method")
    out["method"] = {k: v for k, v in method.items() if _scalar(v)} \
        if isinstance(method, Mapping) else None
    if suite_of(suite).measures_peak:
        out.update(_bare(value, reasons))
    else:
        out.update(_operation(value, reasons))
    return out


def _share(value: Mapping[str, Any], reasons: dict[str, str]) -> dict[str, Any]:
    share = _float(value.get("share_of_peak"))
    if share is not None:
        return {"share_of_peak": share}
    reasons["share_of_peak"] = str(value.get("share_reason") or value.get("unsupported")
                                   or "FINISHED has no share_of_peak")
    return {}


def _bare(value: Mapping[str, Any], reasons: dict[str, str]) -> dict[str, Any]:
    """The references timed beside the figure (the bare torch loop; on a host CPU, numpy's
    GEMM of the same sizes with as many threads) and the figure's ratio to each."""
    out = _beside(value, "reference", "bare", reasons, (
        "no bare torch loop was timed beside this figure (this base/ case has none, or "
        "its FINISHED predates it)"))
    out.update(_beside(value, "numpy_reference", "numpy", reasons, (
        "no numpy GEMM was timed beside this figure (not a GEMM on a host CPU, or its "
        "FINISHED predates it)")))
    return out


def _beside(value: Mapping[str, Any], key: str, prefix: str, reasons: dict[str, str],
            missing: str) -> dict[str, Any]:
    """``<prefix>_value``, ``_method`` and ``_ratio`` of the reference FINISHED keeps under
    ``key``, or the reason for ``<prefix>_ratio`` (FINISHED's ``<key>_reason`` first)."""
    ref = value.get(key)
    figure, unit = value.get("value"), value.get("unit")
    if not isinstance(ref, Mapping) or not _number(ref.get("value")) or ref["value"] <= 0:
        reasons[f"{prefix}_ratio"] = str(value.get(f"{key}_reason") or missing)
        return {}
    out = {f"{prefix}_value": float(ref["value"]), f"{prefix}_method": str(ref.get("method") or "")}
    if SAME_UNIT.get(str(ref.get("unit")), ref.get("unit")) != SAME_UNIT.get(str(unit), unit):
        reasons[f"{prefix}_ratio"] = f"the reference measured {ref.get('unit')}, the case {unit}"
    else:
        measured = _float(figure)
        if measured is not None:
            out[f"{prefix}_ratio"] = measured / float(ref["value"])
    return out


def _operation(value: Mapping[str, Any], reasons: dict[str, str]) -> dict[str, Any]:
    check = value.get("correctness")
    check = check if isinstance(check, Mapping) else {}
    passed = check.get("passed")
    if not isinstance(passed, bool):
        reasons["correct"] = "FINISHED has no correctness check"
    errors = {str(_shape(s.get("shape"))): s for s in check.get("shapes") or ()
              if isinstance(s, Mapping)}
    shapes = tuple(_shape_result(s, errors) for s in value.get("shapes") or ()
                   if isinstance(s, Mapping))
    return {"correct": passed if isinstance(passed, bool) else None, "shapes": shapes,
            "latency_ms": latency(value.get("latency_ms"), reasons)}


def _shape_result(item: Mapping[str, Any], errors: Mapping[str, Mapping[str, Any]]
                  ) -> ShapeResult:
    shape = _shape(item.get("shape"))
    checked = errors.get(shape, {})
    tflops, gbs = _float(item.get("tflops")), _float(item.get("gbs"))
    value, unit = (tflops, "TFLOP/s") if tflops is not None else (gbs, "GB/s")
    calls = _float(item.get("calls"))
    passed = checked.get("passed")
    return ShapeResult(
        shape=shape, calls=None if calls is None else int(calls),
        latency_ms=latency(item.get("latency_ms"), {}), value=value,
        unit=unit if value is not None else None,
        passed=passed if isinstance(passed, bool) else None,
        max_abs_err=_float(checked.get("max_abs_err")))


def _shape(item: Any) -> str:
    if isinstance(item, (list, tuple)):
        return "x".join(str(x) for x in item)
    return str(item or "")


def _number(item: Any) -> bool:
    return isinstance(item, (int, float)) and not isinstance(item, bool)


def _float(item: Any) -> float | None:
    return float(item) if _number(item) else None


def _scalar(item: Any) -> bool:
    return isinstance(item, (str, int, float, bool)) or item is None
