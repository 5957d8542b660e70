"""What an inference round's FINISHED adds to the summary (docs/inference.md).

``inference_fields`` reads engine, precision, the single-stream latency
percentiles and the deviation from the fp32 reference. ``window_work`` is the
work done inside the timed window: for training that is ``work_done``; an
inference window holds the offline scenario (``work_done`` items) and then the
single-stream queries (``latency_ms.count`` queries of one item each), so both
count; an LLM serving case reports ``window_work`` itself (tokens generated in all its
scenarios), and that is used. MFU, work per joule and energy per item divide by it, so numerator and
denominator cover the same window. ``per_item`` is energy over the window per
item; absent with the energy's reason when the energy was not measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chipperf.results.compute.schema import Latency, Reference
from chipperf.suites import suite_of

LATENCY_PARTS = ("p50", "p90", "p99", "mean", "min", "max")
REFERENCE_PARTS = ("max_abs_diff", "mean_abs_diff", "bound", "tolerance")
# RoundResult energy field -> its per-item field
PER_ITEM = {"energy_j": "energy_per_item_j", "accel_energy_j": "accel_energy_per_item_j",
            "cpu_energy_j": "cpu_energy_per_item_j"}


def inference_fields(value: Mapping[str, Any], reasons: dict[str, str]) -> dict[str, Any]:
    """RoundResult fields from an inference FINISHED; each absent one gets a reason."""
    out: dict[str, Any] = {}
    for key in ("engine", "precision"):
        item = value.get(key)
        out[key] = item if isinstance(item, str) and item else None
        if out[key] is None:
            reasons[key] = f"FINISHED lacks {key!r}"
    out["latency_ms"] = latency(value.get("latency_ms"), reasons)
    out["reference"] = reference(value.get("reference"), reasons)
    reported = value.get("window_work")
    if isinstance(reported, int) and not isinstance(reported, bool):
        out["window_work"] = reported       # an LLM case counts its generated tokens itself
    serving = value.get("serving")
    out["serving"] = serving if isinstance(serving, Mapping) else None
    return out


def latency(item: Any, reasons: dict[str, str]) -> Latency | None:
    if not isinstance(item, Mapping):
        reasons["latency_ms"] = "FINISHED lacks 'latency_ms'"
        return None
    parts = {k: _number(item.get(k)) for k in LATENCY_PARTS}
    for key in ("p50", "p90", "p99"):
        if parts[key] is None:
            reasons[f"latency_ms.{key}"] = f"FINISHED latency_ms has no numeric {key!r}"
    count = _number(item.get("count"))
    return Latency(count=None if count is None else int(count), **parts)


def reference(item: Any, reasons: dict[str, str]) -> Reference | None:
    if not isinstance(item, Mapping):
        reasons["reference"] = "FINISHED lacks 'reference'"
        return None
    parts = {k: _number(item.get(k)) for k in REFERENCE_PARTS}
    for key in ("max_abs_diff", "mean_abs_diff", "bound"):
        if parts[key] is None:
            reasons[f"reference.{key}"] = f"FINISHED reference has no numeric {key!r}"
    within = item.get("within_bound")
    nonfinite = _number(item.get("nonfinite_outputs"))
    return Reference(within_bound=within if isinstance(within, bool) else None,
                     nonfinite_outputs=None if nonfinite is None else int(nonfinite), **parts)


def window_work(fields: Mapping[str, Any], suite: str | None,
                reasons: dict[str, str]) -> int | None:
    """Work done inside the timed window (see the module docstring), or None with a reason."""
    done = fields.get("work_done")
    if done is None:
        reasons["window_work"] = reasons.get("work_done", "FINISHED lacks 'work_done'")
        return None
    if not suite_of(suite).infers:
        return int(done)
    if isinstance(fields.get("window_work"), int):
        return int(fields["window_work"])
    latency_ms = fields.get("latency_ms")
    if latency_ms is None or latency_ms.count is None:
        what = "lacks 'latency_ms'" if latency_ms is None else "latency_ms has no 'count'"
        reasons["window_work"] = f"FINISHED {what}: the single-stream items in the timed " \
                                 "window are unknown"
        return None
    return int(done) + latency_ms.count


def per_item(work: int | None, energies: Mapping[str, Any],
             reasons: dict[str, str]) -> dict[str, float]:
    """Energy over the timed window per item done in it, for each measured energy."""
    out: dict[str, float] = {}
    for energy, name in PER_ITEM.items():
        joules = energies.get(energy)
        if not work:
            reasons[name] = reasons.get("window_work", "no work done in the timed window")
        elif joules is None:
            reasons[name] = f"no {energy}: {reasons.get(energy, 'not measured')}"
        else:
            out[name] = joules / work
    return out


def _number(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None
