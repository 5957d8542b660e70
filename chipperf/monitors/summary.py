"""Summaries of one node's monitor files over a timed window, for the results code.

``summarize_node(node_dir, start_ms, end_ms)`` reads the JSONL files (tolerating and
counting truncated or malformed lines) and returns a ``NodeSummary``: node power
(IPMI), CPU package+DRAM power (RAPL), accelerator power per device and in total,
each with average and peak watts and the energy over the window; peak accelerator
memory, average utilisation; and per source how many samples the window should
hold, how many it has and where the gaps are. The window is the caller's (the
PerfLog TRAIN_START..TRAIN_END); energy comes from a cumulative counter when the
source has one (RAPL ``energy_j``, NVML ``energy_mj``) and else from the trapezoid
rule over power samples, and each figure says which. ``summarize`` is the pure core.

A metric that cannot be computed is an ``Unavailable`` carrying the reason; in
``to_dict()`` it is left out and its reason listed under ``"unavailable"``. Never 0.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from chipperf.monitors import series
from chipperf.monitors.records import kind, parse_lines

NODE_FILES = {"cpu": "cpu_monitor.log", "mem": "mem_monitor.log",
              "ipmi": "pwr_monitor.log", "rapl": "pwr_monitor.log"}


@dataclass(frozen=True)
class Unavailable:
    reason: str


@dataclass(frozen=True)
class Coverage:
    """Samples the window should hold (at the source's interval) against those present."""

    interval_s: float
    expected: int
    present: int
    gaps: tuple[series.Gap, ...]
    errors: int  # error lines (and suppressed repeats) stamped inside the window

    def to_dict(self) -> dict[str, Any]:
        return {"interval_s": self.interval_s, "expected": self.expected,
                "present": self.present, "missing": self.expected - self.present,
                "gaps": [g.to_dict() for g in self.gaps], "errors": self.errors}


@dataclass(frozen=True)
class PowerStats:
    """``avg_w`` is time-weighted (energy / covered time); ``peak_w`` the highest reading."""

    avg_w: float
    peak_w: float
    energy_j: float
    energy_method: str  # "counter" | "trapezoid" | "counter+trapezoid"
    covered_s: float  # the part of the window the samples span
    samples: int

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


@dataclass(frozen=True)
class DeviceSummary:
    index: int
    power: PowerStats | Unavailable
    util_avg_pct: float | Unavailable
    mem_peak_used_bytes: int | Unavailable
    mem_total_bytes: int | Unavailable
    temp_peak_c: float | Unavailable

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


@dataclass(frozen=True)
class NodeSummary:
    start_ms: int
    end_ms: int
    node_power: PowerStats | Unavailable  # IPMI (wall power of the whole node)
    cpu_power: PowerStats | Unavailable  # RAPL packages + DRAM
    accelerator_power: PowerStats | Unavailable  # all devices together
    devices: tuple[DeviceSummary, ...] | Unavailable
    accelerator_mem_peak_bytes: int | Unavailable
    cpu_util_avg_pct: float | Unavailable
    mem_peak_used_bytes: int | Unavailable
    coverage: Mapping[str, Coverage | Unavailable] = field(default_factory=dict)
    malformed_lines: int = 0
    problems: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


def _plain(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    absent: dict[str, str] = {}
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, Unavailable):
            absent[f.name] = value.reason
        else:
            out[f.name] = _render(value, absent, f.name)
    if absent:
        out["unavailable"] = absent
    return out


def _render(value: Any, absent: dict[str, str], name: str) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, tuple) and value and hasattr(value[0], "to_dict"):
        return [v.to_dict() for v in value]
    if isinstance(value, Mapping):
        rendered = {}
        for key, item in value.items():
            if isinstance(item, Unavailable):
                absent[f"{name}.{key}"] = item.reason
            else:
                rendered[key] = _render(item, absent, f"{name}.{key}")
        return rendered
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class SourceLines:
    """One source's lines from a file, split by kind."""

    name: str
    samples: tuple[dict[str, Any], ...] = ()
    errors: tuple[dict[str, Any], ...] = ()
    info: Mapping[str, Any] | None = None
    interval_s: float | None = None
    unavailable: str | None = None


def split_sources(records: Iterable[Mapping[str, Any]]) -> dict[str, SourceLines]:
    """Pure: group parsed records by ``source`` (samples sorted by time)."""
    grouped: dict[str, dict[str, Any]] = {}
    for record in records:
        entry = grouped.setdefault(str(record.get("source")), {"samples": [], "errors": []})
        what = kind(record)
        if what == "sample":
            entry["samples"].append(dict(record))
        elif what == "error":
            entry["errors"].append(dict(record))
        elif what == "info":
            entry["info"], entry["interval_s"] = record["info"], record.get("interval_s")
        elif what == "unavailable":
            entry["unavailable"] = str(record["unavailable"])
    return {name: SourceLines(name, tuple(sorted(e.pop("samples"), key=lambda r: r["ts_ms"])),
                              tuple(e.pop("errors")), **e) for name, e in grouped.items()}


def load_node(node_dir: Path, vendor: str | None) -> tuple[dict[str, SourceLines], dict[str, str],
                                                           int, list[str]]:
    """Read a node's monitor files: (sources, missing-file reasons, malformed count, problems)."""
    files = dict(NODE_FILES)
    if vendor:
        files[vendor] = f"{vendor}_monitor.log"
    sources: dict[str, SourceLines] = {}
    missing: dict[str, str] = {}
    malformed = 0
    problems: list[str] = []
    for name in sorted(set(files.values())):
        try:
            text = (node_dir / name).read_text(encoding="utf-8", errors="replace")
        except OSError as e:
            missing.update({s: f"{name}: {e.strerror or e}" for s, f in files.items() if f == name})
            continue
        parsed = parse_lines(text.splitlines(), name)
        malformed += parsed.malformed
        problems.extend(parsed.problems[:20])
        sources.update(split_sources(parsed.records))
    return sources, missing, malformed, problems


def accelerator_vendor(node_dir: Path) -> str | None:
    """The node's vendor: from sys_info.json, else the ``<vendor>_monitor.log`` present."""
    try:
        facts = json.loads((node_dir / "sys_info.json").read_text(encoding="utf-8"))
        return str(facts["accelerators"]["vendor"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    names = sorted(p.name[:-len("_monitor.log")] for p in node_dir.glob("*_monitor.log"))
    return next((n for n in names if n not in ("cpu", "mem", "pwr")), None)


def summarize_node(node_dir: Path, start_ms: int, end_ms: int, vendor: str | None = None,
                   interval_s: float | None = None) -> NodeSummary:
    vendor = vendor or accelerator_vendor(node_dir)
    sources, missing, malformed, problems = load_node(node_dir, vendor)
    return summarize(sources, start_ms, end_ms, vendor, interval_s, missing, malformed, problems)


def summarize(sources: Mapping[str, SourceLines], start_ms: int, end_ms: int,
              vendor: str | None, interval_s: float | None = None,
              missing: Mapping[str, str] | None = None, malformed: int = 0,
              problems: Sequence[str] = ()) -> NodeSummary:
    """Pure: the node summary from already-read sources."""
    if end_ms <= start_ms:
        raise ValueError(f"empty window: end {end_ms} <= start {start_ms}")
    window = Window(start_ms, end_ms, interval_s)
    missing = missing or {}

    def get(name: str) -> SourceLines | Unavailable:
        return _usable(sources.get(name), name, missing)

    accel = get(vendor) if vendor and vendor != "cpu" else Unavailable(
        f"vendor {vendor} runs on CPU cores: no accelerator" if vendor else
        "no <vendor>_monitor.log and no vendor in sys_info.json: no accelerator telemetry")
    devices = window.devices(accel)
    names = ["cpu", "mem", "ipmi", "rapl", *([vendor] if vendor and vendor != "cpu" else [])]
    return NodeSummary(
        start_ms=start_ms, end_ms=end_ms,
        node_power=window.power(get("ipmi"), "power_w", None),
        cpu_power=window.power(get("rapl"), "power_w", "energy_j"),
        accelerator_power=_total_power(devices, window, accel),
        devices=devices,
        accelerator_mem_peak_bytes=_max_over(devices, "mem_peak_used_bytes"),
        cpu_util_avg_pct=window.mean(get("cpu"), "util_pct"),
        mem_peak_used_bytes=window.peak(get("mem"), "used_bytes"),
        coverage={n: window.coverage(get(n)) for n in names},
        malformed_lines=malformed, problems=tuple(problems))


def _usable(src: SourceLines | None, name: str, missing: Mapping[str, str]) -> SourceLines | Unavailable:
    if src is None:
        return Unavailable(missing.get(name) or f"no {name} lines in the monitor files")
    if src.unavailable is not None:
        return Unavailable(src.unavailable)
    return src


@dataclass(frozen=True)
class Window:
    start_ms: int
    end_ms: int
    interval_s: float | None

    def inside(self, src: SourceLines) -> list[dict[str, Any]]:
        return [r for r in src.samples if self.start_ms <= r["ts_ms"] <= self.end_ms]

    def why_empty(self, src: SourceLines) -> Unavailable:
        errors = [e for e in src.errors if self.start_ms <= e["ts_ms"] <= self.end_ms]
        last = f"; last error: {errors[-1]['error']}" if errors else ""
        return Unavailable(f"no {src.name} sample in the window [{self.start_ms}, {self.end_ms}] "
                           f"({len(src.samples)} outside it, {len(errors)} error line(s) in it"
                           f"{last})")

    def values(self, src: SourceLines | Unavailable, key: str) -> list[float] | Unavailable:
        if isinstance(src, Unavailable):
            return src
        inside = self.inside(src)
        found = [r[key] for r in inside if _is_number(r.get(key))]
        if found:
            return found
        return self.why_empty(src) if not inside else Unavailable(
            f"{src.name} samples carry no {key}")

    def mean(self, src: SourceLines | Unavailable, key: str) -> float | Unavailable:
        found = self.values(src, key)
        return found if isinstance(found, Unavailable) else round(statistics.fmean(found), 3)

    def peak(self, src: SourceLines | Unavailable, key: str) -> Any:
        found = self.values(src, key)
        return found if isinstance(found, Unavailable) else max(found)

    def power(self, src: SourceLines | Unavailable, power_key: str,
              counter_key: str | None, scale: float = 1.0) -> PowerStats | Unavailable:
        if isinstance(src, Unavailable):
            return src
        return self.power_of(_points(src.samples, power_key, 1.0),
                             _points(src.samples, counter_key, scale) if counter_key else [], src)

    def power_of(self, watts: list[tuple[float, float]], counter: list[tuple[float, float]],
                 src: SourceLines) -> PowerStats | Unavailable:
        clipped = series.clip(watts, self.start_ms, self.end_ms)
        inside = [v for t, v in watts if self.start_ms <= t <= self.end_ms]
        if len(clipped) < 2:
            return self.why_empty(src) if not inside else Unavailable(
                f"{len(inside)} {src.name} power sample(s) in the window: too few to integrate")
        energy, covered, method = self._energy(clipped, counter)
        if covered <= 0:
            return Unavailable(f"{src.name} power samples span no time in the window")
        return PowerStats(avg_w=round(energy / covered, 3),
                          peak_w=max(inside or [v for _, v in clipped]),
                          energy_j=round(energy, 3), energy_method=method,
                          covered_s=round(covered, 3), samples=len(inside))

    def _energy(self, watts: list[tuple[float, float]],
                counter: list[tuple[float, float]]) -> tuple[float, float, str]:
        clipped = series.clip(counter, self.start_ms, self.end_ms)
        if len(clipped) >= 2 and series.first_decrease(clipped) is None:
            return clipped[-1][1] - clipped[0][1], series.span_s(clipped), "counter"
        return series.trapezoid_j(watts), series.span_s(watts), "trapezoid"

    def coverage(self, src: SourceLines | Unavailable) -> Coverage | Unavailable:
        if isinstance(src, Unavailable):
            return src
        interval_s = self.interval_s or src.interval_s or _median_step(src.samples)
        if not interval_s:
            return Unavailable(f"{src.name}: interval unknown (no info line, < 2 samples)")
        present, found = series.gaps([r["ts_ms"] for r in src.samples], self.start_ms,
                                     self.end_ms, interval_s * 1000)
        errors = sum(1 + int(e.get("suppressed") or 0) for e in src.errors
                     if self.start_ms <= e["ts_ms"] <= self.end_ms)
        return Coverage(interval_s, present + sum(g.missing for g in found), present,
                        tuple(found), errors)

    def devices(self, src: SourceLines | Unavailable) -> tuple[DeviceSummary, ...] | Unavailable:
        if isinstance(src, Unavailable):
            return src
        per_device = _per_device(src)
        if not per_device:
            return self.why_empty(src)
        unsupported = dict((src.info or {}).get("unsupported") or {})
        return tuple(self._device(index, lines, unsupported)
                     for index, lines in sorted(per_device.items()))

    def _device(self, index: int, lines: SourceLines,
                unsupported: Mapping[str, str]) -> DeviceSummary:
        def why(key: str, metric: Any) -> Any:
            if isinstance(metric, Unavailable) and key in unsupported:
                return Unavailable(f"{key}: {unsupported[key]}")
            return metric

        return DeviceSummary(
            index=index,
            power=why("power_w", self.power(lines, "power_w", "energy_mj", scale=1e-3)),
            util_avg_pct=why("util_pct", self.mean(lines, "util_pct")),
            mem_peak_used_bytes=why("mem_used_bytes", self.peak(lines, "mem_used_bytes")),
            mem_total_bytes=why("mem_total_bytes", self.peak(lines, "mem_total_bytes")),
            temp_peak_c=why("temp_c", self.peak(lines, "temp_c")))


def _per_device(src: SourceLines) -> dict[int, SourceLines]:
    """One SourceLines per device index, each sample stamped with its line's time."""
    samples: dict[int, list[dict[str, Any]]] = {}
    for line in src.samples:
        for device in line.get("devices") or []:
            if isinstance(device, dict) and isinstance(device.get("index"), int):
                samples.setdefault(device["index"], []).append({**device, "ts_ms": line["ts_ms"]})
    return {i: SourceLines(f"{src.name} device {i}", tuple(s), src.errors, src.info,
                           src.interval_s) for i, s in samples.items()}


def _total_power(devices: tuple[DeviceSummary, ...] | Unavailable, window: Window,
                 src: SourceLines | Unavailable) -> PowerStats | Unavailable:
    """All devices together: energies and averages add up; the peak is of per-tick sums."""
    if isinstance(devices, Unavailable) or isinstance(src, Unavailable):
        return devices if isinstance(devices, Unavailable) else src  # type: ignore[return-value]
    powers = [d.power for d in devices]
    absent = [f"device {d.index}: {p.reason}" for d, p in zip(devices, powers)
              if isinstance(p, Unavailable)]
    if absent:
        return Unavailable("; ".join(absent))
    stats = [p for p in powers if isinstance(p, PowerStats)]
    sums = [sum(d["power_w"] for d in line["devices"]) for line in window.inside(src)
            if all(_is_number(d.get("power_w")) for d in line.get("devices") or [{}])]
    methods = sorted({s.energy_method for s in stats})
    return PowerStats(avg_w=round(sum(s.avg_w for s in stats), 3),
                      peak_w=round(max(sums), 3) if sums else max(s.peak_w for s in stats),
                      energy_j=round(sum(s.energy_j for s in stats), 3),
                      energy_method="+".join(methods), covered_s=min(s.covered_s for s in stats),
                      samples=len(sums))


def _max_over(devices: tuple[DeviceSummary, ...] | Unavailable, attr: str) -> Any:
    if isinstance(devices, Unavailable):
        return devices
    found = [getattr(d, attr) for d in devices if not isinstance(getattr(d, attr), Unavailable)]
    return max(found) if found else Unavailable(f"no device reports {attr}")


def _points(samples: Iterable[Mapping[str, Any]], key: str,
            scale: float) -> list[tuple[float, float]]:
    return [(r["ts_ms"], r[key] * scale) for r in samples if _is_number(r.get(key))]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _median_step(samples: Sequence[Mapping[str, Any]]) -> float | None:
    steps = [b["ts_ms"] - a["ts_ms"] for a, b in zip(samples, samples[1:])]
    return statistics.median(steps) / 1000.0 if steps else None
