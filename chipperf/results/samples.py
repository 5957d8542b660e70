"""Monitor sample files, read in one streaming pass.

A monitor file (``cpu_monitor.log``, ``mem_monitor.log``, ``pwr_monitor.log``,
``<vendor>_monitor.log``) holds one JSON object per line, as
``chipperf.monitors.records`` writes them::

    {"ts_ms": .., "source": "cpu", "info": {...}, "interval_s": 1.0}
    {"ts_ms": .., "source": "cpu", "util_pct": 12.5, ...}
    {"ts_ms": .., "source": "nvidia", "devices": [{"index": 0, "power_w": 310.0, ...}, ...]}
    {"ts_ms": .., "source": "ipmi", "unavailable": "<reason>"}
    {"ts_ms": .., "source": "rapl", "error": "<what>", "suppressed": 3}
    {"ts_ms": .., "source": "cpu", "end": "<why>", "samples": 60, "errors": 0}

One file may hold several sources (``pwr_monitor.log``: ``ipmi`` wall power and
``rapl`` CPU package power), so a channel is (source or device index, quantity).
FlagPerf's text monitor logs are read too (``chipperf.results.flagperf``).

``read_monitor`` keeps running figures per channel over the timed window and a
time-bucketed series for plots whose size is bounded: an hour of 1 Hz samples of
eight chips costs a few hundred points per chip, never every sample.
"""

from __future__ import annotations

import json
import math
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from operator import add, mul, sub
from pathlib import Path
from typing import Any, Union

# Sample keys read (unit in the name) -> (quantity, scale to the quantity's unit).
QUANTITIES: dict[str, tuple[str, float]] = {
    "power_w": ("power", 1.0),
    "used_bytes": ("mem", 1.0), "mem_used_bytes": ("mem", 1.0),
    "util_pct": ("util", 1.0),
    "used_pct": ("mem_pct", 1.0),
    "energy_j": ("energy", 1.0), "energy_mj": ("energy", 1e-3),   # running counters, joules
}
PLOT_POINTS = 150          # a series keeps between PLOT_POINTS and 2 x PLOT_POINTS buckets
MIN_COVERAGE = 0.9         # window energy needs samples over at least this share of the window
MAX_PROBLEMS = 20          # kept per file when summarising (the checker lists every one)
CHUNK = 4096               # samples a channel buffers before folding them into its figures

Device = Union[int, str, None]       # accelerator index, or the source of a scalar line
Key = tuple[Device, str]             # (device, quantity)
Record = tuple[int, int, Device, Any]   # line, ts_ms, device (or DEVICES), sample dict (or list)


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
                 "prev_t", "prev_v", "scale", "spanned", "total", "ts", "vs")

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale      # applied when a chunk is folded (energy_mj -> J)
        self.ts = array("d")
        self.vs = array("d")
        self.peak_all = -math.inf
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


@dataclass
class MonitorFile:
    """What one monitor file says about a round."""

    path: Path
    window: Window | None = None
    interval_s: float = 1.0
    present: bool = False
    unavailable: dict[str, str] = field(default_factory=dict)    # source -> reason
    errors: int = 0
    first_error: str | None = None
    samples: int = 0
    first_ms: int | None = None
    last_ms: int | None = None
    channels: dict[Key, Channel] = field(default_factory=dict)
    plot: Downsampler = field(default_factory=Downsampler)
    problems: list[str] = field(default_factory=list)
    problem_count: int = 0

    @property
    def max_gap_ms(self) -> float:
        """Samples further apart than this leave a gap (3 sampling intervals)."""
        return max(3000.0 * self.interval_s, 2000.0)

    def devices(self, quantity: str, among: Iterable[Device] | None = None) -> list[Device]:
        found = [d for d, q in self.channels if q == quantity]
        if among is not None:
            allowed = list(among)
            found = [d for d in found if d in allowed]
        return sorted(found, key=lambda d: (isinstance(d, str), str(d) if d is not None else ""))

    def coverage(self, key: Key) -> float | None:
        if self.window is None or self.window.seconds <= 0 or key not in self.channels:
            return None
        return min(1.0, self.channels[key].covered / self.window.seconds)

    def why_absent(self, what: str, sources: Iterable[str] = ()) -> str:
        """Why this file gives no ``what``."""
        name = self.path.name
        if not self.present:
            return f"{name} missing"
        reasons = [f"{s}: {self.unavailable[s]}" for s in sources if s in self.unavailable]
        reasons = reasons or [f"{s}: {r}" for s, r in self.unavailable.items()]
        if reasons:
            return f"{name}: monitor unavailable ({'; '.join(reasons)})"
        if self.samples == 0:
            detail = f" ({self.errors} errors, first: {self.first_error})" if self.errors else ""
            return f"{name} has no samples{detail}"
        return f"{name} has no {what} samples"

    def problem(self, line: int, message: str) -> None:
        self.problem_count += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(f"{self.path.name}:{line}: {message}")


def read_lines(path: Path) -> Iterator[tuple[int, str, bool]]:
    """(line number, text, decoded cleanly) for every line; bad bytes become U+FFFD."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                yield number, raw.decode("utf-8"), True
            except UnicodeDecodeError:
                yield number, raw.decode("utf-8", errors="replace"), False


def jsonl_records(path: Path, out: MonitorFile) -> Iterator[Record]:
    """Samples of a JSONL monitor file; unusable lines become problems in ``out``.
    (One flat loop: this runs once per line of every monitor file.)"""
    decode = _DECODER.decode
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                out.problem(number, "not valid UTF-8 (bytes replaced)")
                text = raw.decode("utf-8", errors="replace")
            try:
                record = decode(text)
            except ValueError:
                if text.strip():
                    out.problem(number, "not a JSON object (truncated or corrupt line)")
                continue
            ts = record.get("ts_ms") if record.__class__ is dict else None
            if ts.__class__ is not int and ts.__class__ is not float:
                out.problem(number, "not a JSON object with a numeric 'ts_ms'")
                continue
            devices = record.get("devices")
            if devices.__class__ is list:
                yield number, int(ts), DEVICES, devices
            elif not _kind_line(record, str(record.get("source")), out):
                source = record.get("source")
                yield number, int(ts), source if source.__class__ is str else None, record


def _kind_line(record: dict, source: str, out: MonitorFile) -> bool:
    """Handle an info / unavailable / error / end line; False when it is a sample."""
    if "info" in record:
        interval = record.get("interval_s")
        if isinstance(interval, (int, float)) and interval > 0:
            out.interval_s = float(interval)
    elif "unavailable" in record:
        out.unavailable.setdefault(source, str(record["unavailable"]))
    elif "error" in record:
        suppressed = record.get("suppressed")
        out.errors += 1 + (suppressed if isinstance(suppressed, int) else 0)
        out.first_error = out.first_error or f"{source}: {record['error']}"
    elif "end" not in record:
        return False
    return True


_DECODER = json.JSONDecoder(parse_constant=lambda name: None)   # NaN / Infinity: no value
DEVICES = "<devices>"     # the device of a record whose values are a list of per-device dicts


def accumulate(records: Iterable[Record], out: MonitorFile) -> MonitorFile:
    """Buffer every known sample key into its channel, folding chunks as they fill.

    The loop is the hot path of summarising a run (it runs once per sample value): each
    device keeps the list of its known keys with their channels (rebuilt when a sample
    has a different number of keys), and a value that is not a number is refused by the
    array itself."""
    tables: dict[Device, tuple[int, list[tuple[str, Channel]]]] = {}
    last, pending = -math.inf, 0

    def feed(device: Device, values: dict[str, Any], ts: int) -> None:
        table = tables.get(device)
        if table is None or table[0] != len(values):
            table = tables[device] = (len(values), _known(out, device, values))
        for key, channel in table[1]:
            value = values.get(key)
            if value is None:
                continue
            try:
                channel.vs.append(value)
            except TypeError:
                continue
            channel.ts.append(ts)

    for number, ts, device, values in records:
        if ts < last:
            out.problem(number, f"ts_ms {ts} is earlier than an earlier sample's {int(last)}")
        else:
            last = ts
        if out.first_ms is None:
            out.first_ms = out.plot.t0 = ts
        out.samples += 1
        if device == DEVICES:
            for position, item in enumerate(values):      # type: ignore[arg-type]
                if item.__class__ is dict:
                    index = item.get("index", position)
                    feed(index if index.__class__ is int else position, item, ts)
        else:
            feed(device, values, ts)
        pending += 1
        if pending >= CHUNK:
            _flush(out)
            pending = 0
    _flush(out)
    out.last_ms = None if last == -math.inf else int(last)
    return out


def _known(out: MonitorFile, device: Device, values: dict[str, Any]) -> list[tuple[str, Channel]]:
    pairs = []
    for key in values:
        channel = _channel_for(out, device, key)
        if channel is not None:
            pairs.append((key, channel))
    return pairs


def _channel_for(out: MonitorFile, device: Device, key: str) -> Channel | None:
    known = QUANTITIES.get(key)
    if known is None:
        return None
    channel = out.channels.get((device, known[0]))
    if channel is None:
        channel = out.channels[(device, known[0])] = Channel(known[1])
    return channel


def _flush(out: MonitorFile) -> None:
    for key, channel in out.channels.items():
        channel.flush(out.window, out.max_gap_ms, out.plot, key)


def read_monitor(path: Path, window: Window | None, interval_s: float = 1.0) -> MonitorFile:
    """Summarise one monitor file (JSONL, or FlagPerf's text format) over ``window``;
    ``interval_s`` is the sampling period unless the file's info line says otherwise."""
    out = MonitorFile(path=path, window=window, interval_s=interval_s)
    if not path.is_file():
        return out
    out.present = True
    try:
        if _is_text_format(path):
            from chipperf.results.flagperf import text_records

            accumulate(text_records(path, read_lines(path), out), out)
        else:
            accumulate(jsonl_records(path, out), out)
    except OSError as exc:
        out.problem(0, f"unreadable: {exc}")
    return out


def _is_text_format(path: Path) -> bool:
    with open(path, "rb") as handle:
        for raw in handle:
            text = raw.strip()
            if text:
                return not text.startswith(b"{")
    return False
