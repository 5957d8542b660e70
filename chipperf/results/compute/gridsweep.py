"""A case's SWEEPS grid as figures: per round, its point, status (``oom`` when it ran out of
memory), throughput, latency and peak memory; and the edge, the largest batch that fit.

Pure: the case's RoundResults, run.json's rounds and the sweep's axes in; rows out. The
evidence of an out-of-memory end (a log line, the container engine's OOMKilled) is read in
chipperf.results.read.sweepread and passed in as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chipperf.results.compute.schema import RoundResult

OOM = "oom"
BATCH, SEQUENCE, PRECISION = "batch", "sequence", "precision"   # chipperf.config.sweep's roles
# what a rank says when memory ran out: torch's OutOfMemoryError (on any device),
# Python's MemoryError, the CPU allocator under RLIMIT_AS or a cgroup, C++'s bad_alloc, XLA's
# RESOURCE_EXHAUSTED, a launcher naming the kernel's OOM kill
_OOM_LINE = re.compile(r"OutOfMemoryError|\bMemoryError\b|out of memory|can't allocate memory|"
                       r"std::bad_alloc|RESOURCE_EXHAUSTED|Cannot allocate memory|"
                       r"oom[-_ ]kill", re.IGNORECASE)


@dataclass(frozen=True)
class Axis:
    param: str
    role: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class SweepRound:
    round: int
    point: Mapping[str, Any]
    status: str                        # the round's status, or OOM
    reason: str = ""
    throughput: float | None = None
    throughput_unit: str | None = None
    latency_p50_ms: float | None = None     # inference
    peak_memory_bytes: int | None = None
    memory_kind: str = ""              # "accelerator (framework)", "host: rank 0's peak RSS", ...


@dataclass(frozen=True)
class Edge:
    others: Mapping[str, Any]          # the point's other axes
    largest_fit: Any = None            # the largest batch whose every round succeeded
    smallest_oom: Any = None           # the smallest batch that ran out of memory


def oom_line(lines: Iterable[str]) -> str | None:
    """The first log line that says memory ran out (None when none does)."""
    return next((line.strip()[:300] for line in lines if _OOM_LINE.search(line)), None)


def axes_of(recorded: Any) -> tuple[Axis, ...]:
    """run.json's test.sweeps[<case key>] (the Sweep as recorded) -> its axes."""
    axes = recorded.get("axes") if isinstance(recorded, Mapping) else None
    return tuple(Axis(str(a.get("param")), str(a.get("role")), tuple(a.get("values") or ()))
                 for a in axes or () if isinstance(a, Mapping))


def sweep_rounds(results: Sequence[RoundResult], points: Mapping[int, Mapping[str, Any]],
                 ooms: Mapping[int, str]) -> tuple[SweepRound, ...]:
    """One row per round that has a point; ``ooms``: round number -> the evidence it ran out
    of memory."""
    by_number = {r.number: r for r in results}
    return tuple(_row(n, points[n], by_number.get(n), ooms.get(n)) for n in sorted(points))


def _row(number: int, point: Mapping[str, Any], result: RoundResult | None,
         oom: str | None) -> SweepRound:
    if result is None:
        return SweepRound(number, point, "missing", "no result read for this round")
    if oom is not None and result.status != "succeeded":
        return SweepRound(number, point, OOM, oom)
    memory, kind = _memory(result)
    throughput = result.throughput
    return SweepRound(number, point, result.status or "unknown", result.reason,
                      throughput.raw if throughput is not None else None,
                      throughput.unit if throughput is not None else None,
                      result.latency_ms.p50 if result.latency_ms is not None else None,
                      memory, kind)


def _memory(result: RoundResult) -> tuple[int | None, str]:
    """The accelerator's peak when it was measured, else the host memory of the ranks."""
    if result.peak_memory_bytes is not None and result.engine is None:
        return result.peak_memory_bytes, "accelerator (framework's peak)"
    if result.peak_accel_memory_bytes is not None:
        return result.peak_accel_memory_bytes, "accelerator (monitor's peak, fullest chip)"
    if result.peak_memory_bytes is not None:    # inference: its FINISHED says which
        return result.peak_memory_bytes, "as FINISHED's peak_memory_source says (cpu: host RSS)"
    if result.peak_rss_bytes is not None:
        return result.peak_rss_bytes, "host memory: rank 0's peak RSS"
    return None, ""


def edges(rows: Sequence[SweepRound], axes: Sequence[Axis]) -> tuple[Edge, ...]:
    """Per combination of the other axes, the largest batch that fit and the smallest that
    ran out of memory; () when the sweep has no batch axis."""
    batch = next((a.param for a in axes if a.role == BATCH), None)
    if batch is None:
        return ()
    groups: dict[tuple[tuple[str, Any], ...], list[SweepRound]] = {}
    for row in rows:
        others = tuple((k, v) for k, v in row.point.items() if k != batch)
        groups.setdefault(others, []).append(row)
    return tuple(_edge(dict(others), group, batch) for others, group in groups.items())


def _edge(others: Mapping[str, Any], group: Sequence[SweepRound], batch: str) -> Edge:
    sizes = sorted({r.point[batch] for r in group})
    fit = [s for s in sizes if all(r.status == "succeeded" for r in group if r.point[batch] == s)]
    oom = [s for s in sizes if any(r.status == OOM for r in group if r.point[batch] == s)]
    return Edge(others, fit[-1] if fit else None, oom[0] if oom else None)


def edge_text(edge: Edge, batch: str) -> str:
    """'seq_len=64: micro_batch_size 8 fits, 16 ran out of memory'."""
    where = " ".join(f"{k}={v}" for k, v in edge.others.items()) or "every point"
    fit = f"{batch} {edge.largest_fit} fits" if edge.largest_fit is not None else \
        f"no {batch} fit"
    oom = f", {edge.smallest_oom} ran out of memory" if edge.smallest_oom is not None else \
        ", none ran out of memory"
    return f"{where}: {fit}{oom}"


def point_means(rows: Sequence[SweepRound], name: str) -> dict[tuple[tuple[str, Any], ...], float]:
    """Point -> the mean of a figure over its succeeded rounds (a point's repeats)."""
    sums: dict[tuple[tuple[str, Any], ...], list[float]] = {}
    for row in rows:
        value = getattr(row, name)
        if row.status == "succeeded" and value is not None:
            sums.setdefault(tuple(row.point.items()), []).append(float(value))
    return {point: sum(v) / len(v) for point, v in sums.items()}
