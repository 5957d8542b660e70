"""What each suite's page shows per case (summary.md, report.html, summary.csv).

Training keeps its rounds table. Inference shows whole and core throughput (FlagPerf's
names: whole with the host-side input pipeline, core compute only), latency percentiles and
agreement with the reference, in no training words. base/ and operation/ show the measured
value in its unit, its share of the spec sheet and its ratio to the bare torch loop (and
on a host CPU to numpy's GEMM), the
method (sizes, warm-up, iterations, timing), power and energy over the timed window, and
operation/ its correctness and latency and figures per shape.
"""

from __future__ import annotations

from chipperf.results.compute.schema import (
    CORE,
    WHOLE,
    CaseResult,
    RoundResult,
    label,
    round_value,
    suite_kind,
)
from chipperf.results.render.text import DASH, fmt, kind_of
from chipperf.suites import suite_of

# What the "passed" column of a suite means (training: converged to its target).
PASSED = {"training": "converged", "inference": "passed", "spec": "correct"}

# One sentence under every inference table: what whole and core count.
THROUGHPUT_NOTE = (f"{WHOLE.split(' (')[0]}: items/s of the offline scenario including the "
                   "host-side input pipeline (read, pre-process, copy to the device, "
                   f"post-process); {CORE.split(' (')[0]}: items/s of the engine's compute on "
                   "device-resident batches only")


def round_figures(case: CaseResult) -> tuple[str, ...]:
    """The suite's round figures (numpy's GEMM only where one was timed: a host CPU's GEMM)."""
    return tuple(n for n in suite_of(case.suite).round_figures
                 if n != "numpy_ratio" or any(r.numpy_ratio is not None for r in case.rounds))


def figure_header(case: CaseResult, name: str) -> str:
    """A column's header, with the unit where the figure's unit is the case's."""
    if name.startswith("throughput"):
        return f"{label(name, case.suite)}, {case.throughput_unit or 'work/s'}"
    if name == "metric_value" and suite_of(case.suite).measures_spec:
        return f"value ({case.metric_name or 'unit'})"
    return label(name, case.suite)


def round_rows(case: CaseResult) -> tuple[list[str], list[list[str]]]:
    kind = suite_kind(case.suite)
    figures = round_figures(case)
    served = suite_of(case.suite).infers       # agreement with the reference, per round
    header = ["round", "status", PASSED[kind]] + (["within bound"] if served else []) + \
        [figure_header(case, n) for n in figures]
    rows = [[str(r.number), r.status or DASH, fmt(_passed(r, kind))]
            + ([fmt(r.reference.within_bound if r.reference else None)] if served else [])
            + [fmt(round_value(r, n), kind_of(n)) for n in figures] for r in case.rounds]
    return header, rows


def _passed(result: RoundResult, kind: str) -> bool | None:
    """training: converged; inference: metric reached and within bound; operation: every
    shape within tolerance of float64 (base/: the measurement completed and checked)."""
    if kind == "spec" and result.correct is not None:
        return result.correct
    return result.converged


def method_rows(case: CaseResult) -> list[tuple[str, str]]:
    """base/ and operation/: how the first round with a method measured its value."""
    result = next((r for r in case.rounds if r.method), None)
    if result is None or not result.method:
        return []
    rows = [(str(k).replace("_", " "), fmt(v) if isinstance(v, float) else str(v))
            for k, v in result.method.items() if v not in (None, "")]
    for name, figure, how in (("bare torch loop", result.bare_value, result.bare_method),
                              ("numpy's GEMM", result.numpy_value, result.numpy_method)):
        if figure is not None:
            rows.append((f"{name} beside it", f"{fmt(figure)} {case.metric_name or ''}: {how}"))
    return rows


def shape_rows(case: CaseResult) -> tuple[list[str], list[list[str]]]:
    """operation/: per shape of the first round that has them."""
    result = next((r for r in case.rounds if r.shapes), None)
    header = ["shape", "calls", "p50 (ms)", "p90 (ms)", "p99 (ms)", "value", "correct",
              "max |error|"]
    if result is None:
        return header, []
    rows = []
    for s in result.shapes:
        lat = s.latency_ms
        rows.append([s.shape or DASH, DASH if s.calls is None else str(s.calls),
                     *(fmt(getattr(lat, p, None) if lat else None) for p in ("p50", "p90", "p99")),
                     f"{fmt(s.value)} {s.unit}" if s.value is not None else DASH,
                     fmt(s.passed), fmt(s.max_abs_err)])
    return header, rows
