"""Pure arithmetic on sampled series: clipping to a window, energy, sample coverage.

A series is a list of ``(ts_ms, value)`` sorted by time. Windows are closed
``[start_ms, end_ms]``. Values between samples are taken as linear (the trapezoid
rule), which is also how a window edge between two samples is interpolated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def clip(points: Sequence[tuple[float, float]], start_ms: float,
         end_ms: float) -> list[tuple[float, float]]:
    """The points inside the window, plus interpolated points at its edges where
    samples lie on both sides of an edge (no extrapolation beyond the samples)."""
    inside = [p for p in points if start_ms <= p[0] <= end_ms]
    before = [p for p in points if p[0] < start_ms]
    after = [p for p in points if p[0] > end_ms]
    first_after_start = inside[0] if inside else (after[0] if after else None)
    if before and first_after_start and first_after_start[0] > start_ms:
        inside.insert(0, (start_ms, _interpolate(before[-1], first_after_start, start_ms)))
    last_before_end = inside[-1] if inside else (before[-1] if before else None)
    if after and last_before_end and last_before_end[0] < end_ms:
        inside.append((end_ms, _interpolate(last_before_end, after[0], end_ms)))
    return inside


def _interpolate(a: tuple[float, float], b: tuple[float, float], t: float) -> float:
    if b[0] == a[0]:
        return b[1]
    return a[1] + (b[1] - a[1]) * (t - a[0]) / (b[0] - a[0])


def trapezoid_j(watts: Sequence[tuple[float, float]]) -> float:
    """Joules under a power series (W over ms timestamps)."""
    return sum((a[1] + b[1]) / 2.0 * (b[0] - a[0]) / 1000.0 for a, b in zip(watts, watts[1:]))


def span_s(points: Sequence[tuple[float, float]]) -> float:
    return (points[-1][0] - points[0][0]) / 1000.0 if len(points) > 1 else 0.0


def first_decrease(points: Sequence[tuple[float, float]]) -> float | None:
    """Timestamp where a cumulative counter went back (reset), or None."""
    return next((b[0] for a, b in zip(points, points[1:]) if b[1] < a[1]), None)


@dataclass(frozen=True)
class Gap:
    """Ticks with no sample: ``missing`` of them, from about ``from_ms`` to ``to_ms``."""

    from_ms: int
    to_ms: int
    missing: int

    def to_dict(self) -> dict[str, int]:
        return {"from_ms": self.from_ms, "to_ms": self.to_ms, "missing": self.missing}


def gaps(sample_ms: Sequence[float], start_ms: float, end_ms: float,
         interval_ms: float) -> tuple[int, list[Gap]]:
    """Samples present in the window and the gaps where ticks have no sample.

    Counted between neighbouring samples (a spacing of n intervals means n - 1 are
    missing), so a slow drift between the sampler's clock and the wall clock is
    never mistaken for a missing sample; window edges count whole intervals.
    """
    inside = sorted(t for t in sample_ms if start_ms <= t <= end_ms)
    if not inside:
        missing = math.floor((end_ms - start_ms) / interval_ms)
        return 0, [Gap(int(start_ms), int(end_ms), missing)] if missing else []
    found = []
    lead = math.floor((inside[0] - start_ms) / interval_ms)
    if lead:
        found.append(Gap(int(inside[0] - lead * interval_ms), int(inside[0] - interval_ms), lead))
    for a, b in zip(inside, inside[1:]):
        missing = round((b - a) / interval_ms) - 1
        if missing > 0:
            found.append(Gap(int(a + interval_ms), int(b - interval_ms), missing))
    tail = math.floor((end_ms - inside[-1]) / interval_ms)
    if tail:
        found.append(Gap(int(inside[-1] + interval_ms), int(inside[-1] + tail * interval_ms), tail))
    return len(inside), found
