"""Streaming figures of one sampled quantity, and the bounded plot buckets of a file.

A ``Channel`` buffers samples in arrays and folds them in chunks with C-level loops
(``sum``, ``max``, ``map``, ``bisect``), so summarising an hour of 1 Hz samples of
many chips costs two appends per value in Python. A ``Downsampler`` keeps between
``capacity`` and twice as many time buckets (mean and max) per channel, doubling the
bucket width as the series grows.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from operator import add, mul, sub
from typing import Union

PLOT_POINTS = 150          # a series keeps between PLOT_POINTS and 2 x PLOT_POINTS buckets

Device = Union[int, str, None]       # accelerator index, or the source of a scalar line
Key = tuple[Device, str]             # (device, quantity)


@dataclass(frozen=True)
class Window:
    start_ms: int
    end_ms: int

    @property
    def seconds(self) -> float:
        return (self.end_ms - self.start_ms) / 1000.0


class Channel:
    """Running figures of one quantity of one device over the window (or every sample).

    Samples are buffered in arrays and folded in chunks with C-level loops (``sum``,
    ``max``, ``map``), so a sample costs two appends in Python, not a function call."""

    __slots__ = ("at_end", "at_start", "covered", "integral", "n", "peak", "peak_all",
                 "prev_t", "prev_v", "scale", "seen", "spanned", "total", "ts", "vs")

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale      # applied when a chunk is folded (energy_mj -> J)
        self.ts = array("d")
        self.vs = array("d")
        self.peak_all = -math.inf
        self.seen = 0           # samples folded, inside the window or not
        self.n = 0
        self.total = 0.0
        self.peak = -math.inf
        self.prev_t: float | None = None
        self.prev_v = 0.0
        self.integral = 0.0     # value x seconds over the window (joules for power)
        self.covered = 0.0      # seconds of the window between samples at most max_gap apart
        self.spanned = 0.0      # seconds of the window between any two samples
        self.at_start: float | None = None   # value interpolated at the window's edges
        self.at_end: float | None = None

    @property
    def mean(self) -> float | None:
        return self.total / self.n if self.n else None

    @property
    def time_mean(self) -> float | None:
        """Time-weighted mean over the window (integral / time spanned by samples); the
        plain mean when there is no window."""
        return self.integral / self.spanned if self.spanned > 0 else self.mean

    @property
    def window_peak(self) -> float | None:
        return self.peak if self.n else None

    def flush(self, window: Window | None, max_gap_ms: float, plot: Downsampler,
              key: Key) -> None:
        ts, vs = self.ts, self.vs
        if not ts:
            return
        if self.scale != 1.0:
            vs = array("d", map(self.scale.__mul__, vs))
        if not all(map(float.__le__, ts[:-1], ts[1:])):
            pairs = sorted(zip(ts, vs))
            ts, vs = array("d", (p[0] for p in pairs)), array("d", (p[1] for p in pairs))
        self.peak_all = max(self.peak_all, max(vs))
        self.seen += len(vs)
        i0, i1 = (0, len(ts)) if window is None else \
            (bisect_left(ts, window.start_ms), bisect_right(ts, window.end_ms))
        if i1 > i0:
            self.n += i1 - i0
            self.total += sum(vs[i0:i1])
            self.peak = max(self.peak, max(vs[i0:i1]))
        if window is not None:
            self._integrate(ts, vs, window, max_gap_ms)
        plot.add_chunk(key, ts, vs)
        self.prev_t, self.prev_v = ts[-1], vs[-1]
        self.ts, self.vs = array("d"), array("d")

    def _integrate(self, ts: array, vs: array, window: Window, gap: float) -> None:
        if self.prev_t is not None and self.prev_t < ts[0]:
            ts, vs = array("d", [self.prev_t]) + ts, array("d", [self.prev_v]) + vs
        last = len(ts) - 1
        a = max(0, bisect_right(ts, window.start_ms) - 1)
        b = min(last, bisect_left(ts, window.end_ms))
        if b <= a:
            return
        self._edge(ts[a], vs[a], ts[a + 1], vs[a + 1], window, gap)
        if b - 1 > a:
            self._edge(ts[b - 1], vs[b - 1], ts[b], vs[b], window, gap)
        if b - 2 > a:       # segments a+1 .. b-2 lie inside the window: C-level sums
            dts = list(map(sub, ts[a + 2:b], ts[a + 1:b - 1]))
            sums = map(add, vs[a + 1:b - 1], vs[a + 2:b])
            self.integral += sum(map(mul, sums, dts)) / 2000.0
            self.spanned += sum(dts) / 1000.0
            self.covered += sum(filter(float(gap).__ge__, dts)) / 1000.0

    def _edge(self, t0: float, v0: float, t1: float, v1: float, window: Window,
              gap: float) -> None:
        """A segment that may stick out of the window: clipped to it."""
        lo, hi = max(t0, window.start_ms), min(t1, window.end_ms)
        if hi <= lo or t1 <= t0:
            return
        slope = (v1 - v0) / (t1 - t0)
        start, end = v0 + slope * (lo - t0), v0 + slope * (hi - t0)
        within = t1 - t0 <= gap
        if within and lo == window.start_ms:
            self.at_start = start
        if within and hi == window.end_ms:
            self.at_end = end
        self.integral += (start + end) / 2 * (hi - lo) / 1000.0
        self.spanned += (hi - lo) / 1000.0
        if within:
            self.covered += (hi - lo) / 1000.0


class Downsampler:
    """Time buckets shared by every channel of one file; widths double to stay bounded."""

    def __init__(self, capacity: int = PLOT_POINTS, width_ms: int = 1000):
        self.capacity = capacity
        self.width = width_ms
        self.t0: float | None = None
        self.buckets: dict[Key, dict[int, list[float]]] = {}

    def add_chunk(self, key: Key, ts: array, vs: array) -> None:
        """Fold sorted samples into buckets: work per bucket, not per sample."""
        if self.t0 is None:
            self.t0 = ts[0]
        while (ts[-1] - self.t0) // self.width >= 2 * self.capacity:
            self._halve()
        cells = self.buckets.setdefault(key, {})
        pos, size = 0, len(ts)
        while pos < size:
            index = max(0, int((ts[pos] - self.t0) // self.width))
            end = bisect_left(ts, self.t0 + (index + 1) * self.width, pos)
            chunk = vs[pos:end]
            cell = cells.get(index)
            if cell is None:
                cells[index] = [sum(chunk), float(end - pos), max(chunk)]
            else:
                cell[0] += sum(chunk)
                cell[1] += end - pos
                cell[2] = max(cell[2], max(chunk))
            pos = end

    def _halve(self) -> None:
        self.width *= 2
        for key, cells in self.buckets.items():
            merged: dict[int, list[float]] = {}
            for index, (s, n, m) in cells.items():
                cell = merged.setdefault(index // 2, [0.0, 0.0, -math.inf])
                cell[0] += s
                cell[1] += n
                cell[2] = max(cell[2], m)
            self.buckets[key] = merged

    def series(self, key: Key) -> dict[int, tuple[int, float, float]]:
        """bucket index -> (bucket middle ms, mean, max)."""
        t0 = self.t0 or 0
        return {i: (int(t0 + (i + 0.5) * self.width), s / n, m)
                for i, (s, n, m) in sorted(self.buckets.get(key, {}).items())}
