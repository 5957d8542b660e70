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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

# Sample keys read (unit in the name) -> (quantity, scale to the quantity's unit).
QUANTITIES: dict[str, tuple[str, float]] = {
    "power_w": ("power", 1.0),
    "used_bytes": ("mem", 1.0), "mem_used_bytes": ("mem", 1.0),
    "total_bytes": ("mem_total", 1.0), "mem_total_bytes": ("mem_total", 1.0),
    "util_pct": ("util", 1.0),
    "used_pct": ("mem_pct", 1.0),
    "energy_j": ("energy", 1.0), "energy_mj": ("energy", 1e-3),   # running counters, joules
}
PLOT_POINTS = 240          # a series keeps between PLOT_POINTS and 2 x PLOT_POINTS buckets
MIN_COVERAGE = 0.9         # window energy needs samples over at least this share of the window
MAX_PROBLEMS = 20          # kept per file when summarising (the checker lists every one)

Device = Union[int, str, None]       # accelerator index, or the source of a scalar line
Key = tuple[Device, str]             # (device, quantity)
Record = tuple[int, int, Device, "dict[str, float]"]   # line, ts_ms, device, quantities


@dataclass(frozen=True)
class Window:
    start_ms: int
    end_ms: int

    @property
    def seconds(self) -> float:
        return (self.end_ms - self.start_ms) / 1000.0


class Channel:
    """Running figures of one quantity of one device over the window (or every sample)."""

    __slots__ = ("at_end", "at_start", "covered", "integral", "n", "peak", "peak_all",
                 "prev_t", "prev_v", "total")

    def __init__(self) -> None:
        self.peak_all = -math.inf
        self.n = 0
        self.total = 0.0
        self.peak = -math.inf
        self.prev_t: int | None = None
        self.prev_v = 0.0
        self.integral = 0.0     # value x seconds over the window (joules for power)
        self.covered = 0.0      # seconds of the window between samples at most max_gap apart
        self.at_start: float | None = None   # value interpolated at the window's edges
        self.at_end: float | None = None

    def add(self, t: int, v: float, window: Window | None, max_gap_ms: float) -> None:
        self.peak_all = max(self.peak_all, v)
        if window is None or window.start_ms <= t <= window.end_ms:
            self.n += 1
            self.total += v
            self.peak = max(self.peak, v)
        if window is not None:
            if t == window.start_ms:
                self.at_start = v
            if t == window.end_ms:
                self.at_end = v
            if self.prev_t is not None and t > self.prev_t:
                self._segment(self.prev_t, self.prev_v, t, v, window, max_gap_ms)
        self.prev_t, self.prev_v = t, v

    def _segment(self, t0: int, v0: float, t1: int, v1: float, window: Window,
                 max_gap_ms: float) -> None:
        lo, hi = max(t0, window.start_ms), min(t1, window.end_ms)
        if hi <= lo:
            return
        slope = (v1 - v0) / (t1 - t0)
        a, b = v0 + slope * (lo - t0), v0 + slope * (hi - t0)
        within = t1 - t0 <= max_gap_ms
        if within and lo == window.start_ms:
            self.at_start = a
        if within and hi == window.end_ms:
            self.at_end = b
        self.integral += (a + b) / 2 * (hi - lo) / 1000.0
        if within:
            self.covered += (hi - lo) / 1000.0

    @property
    def mean(self) -> float | None:
        return self.total / self.n if self.n else None

    @property
    def window_peak(self) -> float | None:
        return self.peak if self.n else None


class Downsampler:
    """Time buckets shared by every channel of one file; widths double to stay bounded."""

    def __init__(self, capacity: int = PLOT_POINTS, width_ms: int = 1000):
        self.capacity = capacity
        self.width = width_ms
        self.t0: int | None = None
        self.buckets: dict[Key, dict[int, list[float]]] = {}

    def add(self, t: int, key: Key, v: float) -> None:
        if self.t0 is None:
            self.t0 = t
        index = max(0, t - self.t0) // self.width
        while index >= 2 * self.capacity:
            self._halve()
            index //= 2
        cells = self.buckets.get(key)
        if cells is None:
            cells = self.buckets[key] = {}
        cell = cells.get(index)
        if cell is None:
            cells[index] = [v, 1.0, v]
        else:
            cell[0] += v
            cell[1] += 1
            cell[2] = max(cell[2], v)

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


def jsonl_records(lines: Iterable[tuple[int, str, bool]], out: MonitorFile) -> Iterator[Record]:
    """Samples of a JSONL monitor file; unusable lines become problems in ``out``."""
    loads = json.loads
    for number, text, clean in lines:
        if not clean:
            out.problem(number, "not valid UTF-8 (bytes replaced)")
        try:
            record = loads(text)
        except ValueError:
            if text.strip():
                out.problem(number, "not a JSON object (truncated or corrupt line)")
            continue
        yield from _records_of(number, record, out)


def _records_of(number: int, record: Any, out: MonitorFile) -> Iterator[Record]:
    ts = record.get("ts_ms") if isinstance(record, dict) else None
    if isinstance(ts, bool) or not isinstance(ts, (int, float)):
        out.problem(number, "not a JSON object with a numeric 'ts_ms'")
        return
    source = record.get("source")
    devices = record.get("devices")
    if isinstance(devices, list):
        for position, item in enumerate(devices):
            if isinstance(item, dict):
                yield number, int(ts), _index_of(item, position), _quantities(item)
    elif not _kind_line(record, str(source), out):
        yield number, int(ts), source if isinstance(source, str) else None, _quantities(record)


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


def _index_of(item: dict, position: int) -> int:
    index = item.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else position


def _quantities(record: dict) -> dict[str, float]:
    out = {}
    for key, value in record.items():
        known = QUANTITIES.get(key)
        if known and isinstance(value, (int, float)) and not isinstance(value, bool) \
                and not math.isnan(value):
            out[known[0]] = float(value) * known[1]
    return out


def accumulate(records: Iterable[Record], out: MonitorFile) -> MonitorFile:
    """Feed samples into ``out``'s channels and plot buckets."""
    window, channels, plot = out.window, out.channels, out.plot
    last: int | None = None
    for number, ts, device, values in records:
        if last is not None and ts < last:
            out.problem(number, f"ts_ms {ts} is earlier than an earlier sample's {last}")
        last = ts if last is None else max(last, ts)
        if out.first_ms is None:
            out.first_ms = ts
        out.samples += 1
        gap = out.max_gap_ms
        for quantity, value in values.items():
            key = (device, quantity)
            channel = channels.get(key)
            if channel is None:
                channel = channels[key] = Channel()
            channel.add(ts, value, window, gap)
            plot.add(ts, key, value)
    out.last_ms = last
    return out


def read_monitor(path: Path, window: Window | None, interval_s: float = 1.0) -> MonitorFile:
    """Summarise one monitor file (JSONL, or FlagPerf's text format) over ``window``;
    ``interval_s`` is the sampling period unless the file's info line says otherwise."""
    out = MonitorFile(path=path, window=window, interval_s=interval_s)
    if not path.is_file():
        return out
    out.present = True
    try:
        lines = read_lines(path)
        if _is_text_format(path):
            from chipperf.results.flagperf import text_records

            accumulate(text_records(path, lines, out), out)
        else:
            accumulate(jsonl_records(lines, out), out)
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
