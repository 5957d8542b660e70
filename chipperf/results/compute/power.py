"""A node's monitor files -> its power, energy, memory and utilisation over the window.

Sources, per node dir:
  pwr_monitor.log   ``ipmi`` lines: the node's wall power (avg / peak / energy);
                    ``rapl`` lines: CPU package + DRAM power (cpu_power_w, cpu_energy_j)
  <vendor>_monitor.log  one entry per chip: power, memory used, utilisation
  cpu_monitor.log, mem_monitor.log  host CPU utilisation and memory used

Energy over the window is the difference of a running energy counter when the
source has one (NVML ``energy_mj``, RAPL ``energy_j``), else the trapezoid integral of
power, given samples cover at least ``MIN_COVERAGE`` of the window. Memory peaks are
over the whole round (loading counts); power averages are time-weighted (energy over
the time the samples span inside the window), utilisation averages are sample means,
and power peaks the highest sample, all over the window.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chipperf.results.compute.schema import NodeResult
from chipperf.results.read.monitors import read_monitor
from chipperf.results.read.samples import (
    MIN_COVERAGE,
    Channel,
    Device,
    MonitorFile,
    Window,
)
from chipperf_runtime.monitors.command import DEFAULT_INTERVAL_S

WALL = ("ipmi", None)        # sources of node wall power (None: a line without "source")
RAPL = ("rapl",)
CPU = ("cpu", None)
MEM = ("mem", None)


@dataclass(frozen=True)
class NodeSeries:
    """Downsampled plot series of one node: name -> ((t_ms, value), ...)."""

    node: str
    series: dict[str, tuple[tuple[int, float], ...]]


@dataclass(frozen=True)
class NodeFiles:
    cpu: MonitorFile
    mem: MonitorFile
    pwr: MonitorFile
    accel: MonitorFile | None     # None: the vendor has no accelerator telemetry
    accel_absent: str = ""        # why there is no accelerator file to read


def read_node_files(node_dir: Path, window: Window | None, intervals: dict[str, float],
                    accel_name: str | None, accel_absent: str = "") -> NodeFiles:
    def read(name: str, kind: str) -> MonitorFile:
        return read_monitor(node_dir / name, window, intervals.get(kind, DEFAULT_INTERVAL_S))

    accel = read(accel_name, "accel") if accel_name else None
    return NodeFiles(read("cpu_monitor.log", "cpu"), read("mem_monitor.log", "mem"),
                     read("pwr_monitor.log", "pwr"), accel, accel_absent)


def node_figures(files: NodeFiles) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """NodeResult fields, reasons for absent ones, and the files' problems."""
    fields: dict[str, Any] = {"coverage": {}, "samples": {}}
    reasons: dict[str, str] = {}
    _wall(files.pwr, fields, reasons)
    _rapl(files.pwr, fields, reasons)
    _accelerators(files, fields, reasons)
    _host(files, fields, reasons)
    problems = []
    for f in (files.cpu, files.mem, files.pwr, files.accel):
        if f is not None:
            problems += f.problems
            if f.problem_count > len(f.problems):
                problems.append(f"{f.path.name}: {f.problem_count - len(f.problems)} more problems")
    return fields, reasons, problems


def _channel(f: MonitorFile, quantity: str, sources: Iterable[Device]
             ) -> tuple[Device, Channel | None]:
    """The first of ``sources`` that has ``quantity`` in this file, and its channel."""
    found = f.devices(quantity, sources)
    return (found[0], f.channels[(found[0], quantity)]) if found else (None, None)


def _wall(f: MonitorFile, fields: dict[str, Any], reasons: dict[str, str]) -> None:
    device, channel = _channel(f, "power", WALL)
    if channel is None or channel.time_mean is None:
        why = f.why_absent("wall power (ipmi)", ("ipmi",)) if channel is None \
            else f"{f.path.name} has no wall-power sample around the timed window"
        reasons.update(dict.fromkeys(("avg_power_w", "peak_power_w", "energy_j"), why))
        return
    fields["avg_power_w"] = channel.time_mean
    fields["peak_power_w"] = channel.window_peak
    if channel.window_peak is None:
        reasons["peak_power_w"] = f"{f.path.name}: no wall-power sample inside the window"
    fields["energy_j"], why = energy(f, device)
    if why:
        reasons["energy_j"] = why
    _note_coverage(f, device, "pwr", fields)


def _rapl(f: MonitorFile, fields: dict[str, Any], reasons: dict[str, str]) -> None:
    channel = f.channels.get(("rapl", "power"))
    if channel is None or channel.time_mean is None:
        reasons["cpu_power_w"] = reasons["cpu_energy_j"] = f.why_absent("RAPL power", RAPL)
        return
    fields["cpu_power_w"] = channel.time_mean
    fields["cpu_energy_j"], why = energy(f, "rapl")
    if why:
        reasons["cpu_energy_j"] = why


def energy(f: MonitorFile, device: Device) -> tuple[float | None, str]:
    """Joules of ``device`` over the window: counter difference, else the power integral."""
    if f.window is None:
        return None, "no timed window (TRAIN_START / TRAIN_END) to integrate over"
    counter = f.channels.get((device, "energy"))
    if counter is not None and counter.at_start is not None and counter.at_end is not None:
        if counter.at_end >= counter.at_start:
            return counter.at_end - counter.at_start, ""
    coverage = f.coverage((device, "power"))
    if coverage is None or coverage < MIN_COVERAGE:
        share = 0.0 if coverage is None else coverage * 100
        label = "" if device is None else f" ({device})"
        return None, (f"{f.path.name}{label}: samples cover {share:.0f}% of the timed window "
                      f"(energy needs {MIN_COVERAGE:.0%})")
    return f.channels[(device, "power")].integral, ""


def _note_coverage(f: MonitorFile, device: Device, label: str, fields: dict[str, Any]) -> None:
    coverage = f.coverage((device, "power"))
    if coverage is not None:
        fields["coverage"][label] = round(coverage, 4)
    channel = f.channels.get((device, "power"))
    if channel is not None:
        fields["samples"][label] = channel.n


def _accelerators(files: NodeFiles, fields: dict[str, Any], reasons: dict[str, str]) -> None:
    f = files.accel
    keys = ("chips", "accel_avg_power_w_per_chip", "accel_peak_power_w_per_chip",
            "accel_energy_j", "peak_accel_memory_bytes", "avg_accel_util_pct")
    if f is None:
        reasons.update({k: files.accel_absent for k in keys})
        return
    chips = f.chips()
    if not chips:
        reasons.update({k: f.why_absent("accelerator") for k in keys})
        return
    fields["chips"] = len(chips)
    _accel_power(f, chips, fields, reasons)
    memory = [f.channels[(d, "mem")].peak_all for d in f.devices("mem", chips)]
    fields["peak_accel_memory_bytes"] = int(max(memory)) if memory else None
    if not memory:
        reasons["peak_accel_memory_bytes"] = f.why_absent("memory-used")
    utils = [u for u in (f.channels[(d, "util")].mean for d in f.devices("util", chips))
             if u is not None]
    fields["avg_accel_util_pct"] = sum(utils) / len(utils) if utils else None
    if not utils:
        reasons["avg_accel_util_pct"] = f.why_absent("utilisation in the window")


def _accel_power(f: MonitorFile, chips: Sequence[int], fields: dict[str, Any],
                 reasons: dict[str, str]) -> None:
    devices = f.devices("power", chips)
    channels = [f.channels[(d, "power")] for d in devices]
    means = [c.time_mean for c in channels if c.time_mean is not None]
    if not devices or len(means) < len(chips):
        why = f.why_absent("power") if not devices else \
            f"{f.path.name}: not every chip has power samples in the timed window"
        for key in ("accel_avg_power_w_per_chip", "accel_peak_power_w_per_chip", "accel_energy_j"):
            reasons[key] = why
        return
    fields["accel_avg_power_w_per_chip"] = sum(means) / len(means)
    peaks = [c.window_peak for c in channels if c.window_peak is not None]
    fields["accel_peak_power_w_per_chip"] = max(peaks) if peaks else None
    if not peaks:
        reasons["accel_peak_power_w_per_chip"] = f"{f.path.name}: no sample inside the window"
    joules = [energy(f, d) for d in devices]
    known = [j for j, _ in joules if j is not None]
    missing = [why for j, why in joules if j is None]
    fields["accel_energy_j"] = sum(known) if not missing else None
    if missing:
        reasons["accel_energy_j"] = missing[0]
    coverage = [c for c in (f.coverage((d, "power")) for d in devices) if c is not None]
    if coverage and len(coverage) == len(devices):
        fields["coverage"]["accel"] = round(min(coverage), 4)
    fields["samples"]["accel"] = min(c.n for c in channels)


def _host(files: NodeFiles, fields: dict[str, Any], reasons: dict[str, str]) -> None:
    _, cpu = _channel(files.cpu, "util", CPU)
    fields["avg_cpu_util_pct"] = cpu.mean if cpu else None
    if cpu is None or cpu.mean is None:
        reasons["avg_cpu_util_pct"] = files.cpu.why_absent("CPU utilisation")
    else:
        fields["samples"]["cpu"] = cpu.n
    _, mem = _channel(files.mem, "mem", MEM)
    _, pct = _channel(files.mem, "mem_pct", MEM)
    fields["peak_host_memory_bytes"] = int(mem.peak_all) if mem else None
    fields["peak_host_memory_pct"] = pct.peak_all if pct else None
    if mem is None:
        reasons["peak_host_memory_bytes"] = files.mem.why_absent("memory-used bytes")
    if pct is None:
        reasons["peak_host_memory_pct"] = files.mem.why_absent("memory-used share")


def node_result(name: str, host: str, rank: int | None, status: str | None, reason: str,
                files: NodeFiles) -> NodeResult:
    fields, reasons, problems = node_figures(files)
    return NodeResult(name=name, host=host, node_rank=rank, status=status, reason=reason,
                      reasons=reasons, problems=tuple(problems), **fields)


# ---------------------------------------------------------------- plot series


def node_series(name: str, files: NodeFiles) -> NodeSeries:
    series: dict[str, tuple[tuple[int, float], ...]] = {}
    _put(series, "power_w", files.pwr, "power", WALL, "first")
    _put(series, "cpu_power_w", files.pwr, "power", RAPL, "first")
    _put(series, "cpu_util_pct", files.cpu, "util", CPU, "first")
    _put(series, "host_mem_bytes", files.mem, "mem", MEM, "first")
    if files.accel is not None:
        chips = files.accel.chips()
        _put(series, "accel_power_w", files.accel, "power", chips, "sum")
        _put(series, "accel_util_pct", files.accel, "util", chips, "mean")
        _put(series, "accel_mem_bytes", files.accel, "mem", chips, "max")
    return NodeSeries(name, series)


def _put(series: dict[str, tuple[tuple[int, float], ...]], name: str, f: MonitorFile,
         quantity: str, among: Iterable[Device], how: str) -> None:
    devices = f.devices(quantity, among)
    if how == "first":
        devices = devices[:1]
    if not devices:
        return
    columns = [f.plot.series((d, quantity)) for d in devices]
    indices = sorted(set().union(*columns)) if how != "sum" else \
        sorted(set.intersection(*(set(c) for c in columns)))
    points = []
    for i in indices:
        cells = [c[i] for c in columns if i in c]
        t = cells[0][0]
        if how == "sum":
            points.append((t, sum(c[1] for c in cells)))
        elif how == "max":
            points.append((t, max(c[2] for c in cells)))
        else:
            points.append((t, sum(c[1] for c in cells) / len(cells)))
    series[name] = tuple(points)
