"""Monitor sample files, read in one streaming pass.

A monitor file (``cpu_monitor.log``, ``mem_monitor.log``, ``pwr_monitor.log``,
``<vendor>_monitor.log``) holds one JSON object per line, as
``chipperf_runtime.monitors.records`` writes them::

    {"ts_ms": .., "source": "cpu", "info": {...}, "interval_s": 1.0}
    {"ts_ms": .., "source": "cpu", "util_pct": 12.5, ...}
    {"ts_ms": .., "source": "nvidia", "devices": [{"index": 0, "power_w": 310.0, ...}, ...]}
    {"ts_ms": .., "source": "ipmi", "unavailable": "<reason>"}
    {"ts_ms": .., "source": "rapl", "error": "<what>", "suppressed": 3}
    {"ts_ms": .., "source": "cpu", "end": "<why>", "samples": 60, "errors": 0}

One file may hold several sources (``pwr_monitor.log``: ``ipmi`` wall power and
``rapl`` CPU package power), so a channel is (source or device index, quantity).
FlagPerf's text monitor logs become the same records (``chipperf.results.read.flagperf``);
``chipperf.results.read.monitors.read_monitor`` picks the reader of a file.

``accumulate`` keeps running figures per channel over the timed window and a
time-bucketed series for plots whose size is bounded: an hour of 1 Hz samples of
eight chips costs a few hundred points per chip, never every sample.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chipperf.results.compute.channel import PLOT_POINTS, Channel, Device, Downsampler, Key, Window
from chipperf_runtime.monitors.command import DEFAULT_INTERVAL_S

__all__ = ["PLOT_POINTS", "Channel", "Device", "Downsampler", "Key", "MonitorFile", "Window"]

# Sample keys read (unit in the name) -> (quantity, scale to the quantity's unit).
QUANTITIES: dict[str, tuple[str, float]] = {
    "power_w": ("power", 1.0),
    "used_bytes": ("mem", 1.0), "mem_used_bytes": ("mem", 1.0),
    "util_pct": ("util", 1.0),
    "used_pct": ("mem_pct", 1.0),
    "energy_j": ("energy", 1.0), "energy_mj": ("energy", 1e-3),   # running counters, joules
}
MIN_COVERAGE = 0.9         # window energy needs samples over at least this share of the window
MAX_PROBLEMS = 20          # kept per file when summarising (the checker lists every one)
CHUNK = 4096               # samples a channel buffers before folding them into its figures

Record = tuple[int, int, Device, Any]   # line, ts_ms, device (or DEVICES), sample dict (or list)


@dataclass
class MonitorFile:
    """What one monitor file says about a round."""

    path: Path
    window: Window | None = None
    interval_s: float = DEFAULT_INTERVAL_S
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
        found = [d for (d, q), c in self.channels.items() if q == quantity and c.seen]
        if among is not None:
            allowed = list(among)
            found = [d for d in found if d in allowed]
        return sorted(found, key=_device_order)

    def chips(self) -> list[int]:
        """Accelerator indices with at least one sample of anything."""
        return sorted({d for (d, _), c in self.channels.items() if isinstance(d, int) and c.seen})

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


def _device_order(device: Device) -> tuple[int, int, str]:
    if isinstance(device, int):
        return 0, device, ""
    return 1, 0, "" if device is None else device


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
