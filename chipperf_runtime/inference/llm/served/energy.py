"""Energy of each sweep point from the monitor files beside the case's output (pure but for
reading them): output tokens per joule per point.

The monitor sidecar writes its JSONL samples (``chipperf_runtime.monitors.records``) into the
node's result dir, which is the case's ``--output_dir``; each point records its wall-clock
load window (``start_unix_s``, ``end_unix_s``: ``sweep.load_window``). The source, first
found:

1. the chips' own telemetry, ``<vendor>_monitor.log``: the devices' running energy counters
   (``energy_mj``/``energy_j``) when every sample has them, else their summed ``power_w``;
2. ``pwr_monitor.log``'s ``rapl`` lines (CPU package + DRAM energy counter: the cpu vendor's
   chip), then its ``ipmi`` lines (the node's wall power).

A counter gives the difference of its values interpolated at the window's ends; power, the
trapezoid integral with the ends interpolated. Samples must bracket the window (one at or
before its start, one at or after its end), else the point's energy is absent with the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Sequence

from chipperf_runtime.monitors.records import kind, parse_lines

Series = list[tuple[float, float]]     # (epoch seconds, value)
COUNTERS = (("energy_j", 1.0), ("energy_mj", 1e-3))


def chip_series(records: Sequence[dict]) -> tuple[Series, bool]:
    """The chips' summed energy counter (True) or summed power (False) per sample."""
    samples = [r for r in records if kind(r) == "sample" and isinstance(r.get("devices"), list)]
    for key, scale in COUNTERS:
        if samples and all(_all_have(r["devices"], key) for r in samples):
            return [(r["ts_ms"] / 1000, scale * sum(d[key] for d in r["devices"]))
                    for r in samples], True
    usable = [r for r in samples if _all_have(r["devices"], "power_w")]
    return [(r["ts_ms"] / 1000, sum(d["power_w"] for d in r["devices"])) for r in usable], False


def node_series(records: Sequence[dict], source: str, key: str) -> Series:
    return [(r["ts_ms"] / 1000, float(r[key])) for r in records
            if r.get("source") == source and kind(r) == "sample" and _number(r.get(key))]


def window_energy(series: Series, start: float, end: float, counter: bool) -> Optional[float]:
    """Joules over [start, end]; None when the samples do not bracket it."""
    series = sorted(series)
    if len(series) < 2 or series[0][0] > start or series[-1][0] < end or end <= start:
        return None
    if counter:
        return _at(series, end) - _at(series, start)
    inside = [(start, _at(series, start)), *[p for p in series if start < p[0] < end],
              (end, _at(series, end))]
    return sum((t1 - t0) * (v0 + v1) / 2 for (t0, v0), (t1, v1) in zip(inside, inside[1:]))


def sources(node_dir: Path, vendor: str) -> list[tuple[str, Series, bool]]:
    """(name, series, is a counter) of every energy source found, in the order above."""
    found = []
    chips = _records(node_dir / f"{vendor}_monitor.log")
    series, counter = chip_series(chips)
    if series:
        found.append((f"chips ({vendor}_monitor.log, {'energy counter' if counter else 'power'})",
                      series, counter))
    node = _records(node_dir / "pwr_monitor.log")
    for name, source, key, counter in (("CPU package + DRAM (RAPL energy counter)", "rapl",
                                        "energy_j", True),
                                       ("node wall power (IPMI)", "ipmi", "power_w", False)):
        series = node_series(node, source, key)
        if series:
            found.append((name, series, counter))
    return found


def add_point_energy(points: list[dict], node_dir: Path, vendor: str) -> None:
    """``energy_j``, ``energy_source`` and ``output_tokens_per_joule`` on each measured point,
    or ``energy_absent`` saying why."""
    found = sources(node_dir, vendor)
    for p in points:
        if p.get("status") != "succeeded" or "start_unix_s" not in p:
            continue
        p.update(point_energy(p, found, node_dir))


def point_energy(p: dict, found: list[tuple[str, Series, bool]], node_dir: Path) -> dict:
    if not found:
        return {"energy_absent": f"no power or energy samples in {node_dir} (no chip telemetry, "
                                 "RAPL or IPMI lines in its monitor files)"}
    name, series, counter = found[0]
    joules = window_energy(series, p["start_unix_s"], p["end_unix_s"], counter)
    if not joules or joules <= 0:
        return {"energy_absent": f"{name}: the samples do not cover the point's window "
                                 f"({p['end_unix_s'] - p['start_unix_s']:.3g} s)"}
    return {"energy_j": joules, "energy_source": name,
            "output_tokens_per_joule": p["total_output_tokens"] / joules}


def _records(path: Path) -> list[dict[str, Any]]:
    try:
        return list(parse_lines(path.read_text(errors="replace").splitlines(), path.name).records)
    except OSError:
        return []


def _at(series: Series, t: float) -> float:
    """The value at ``t``, interpolated between the samples around it."""
    for (t0, v0), (t1, v1) in zip(series, series[1:]):
        if t0 <= t <= t1:
            return v0 if t1 == t0 else v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    return series[-1][1]


def _all_have(devices: list, key: str) -> bool:
    return bool(devices) and all(isinstance(d, dict) and _number(d.get(key)) for d in devices)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
