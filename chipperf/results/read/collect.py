"""Read a run directory into the result schema (see docs/results.md).

``collect(run_dir)`` walks ``run.json`` and the tree on disk together: a case,
round or node that one lists and the other lacks is still summarised as far as
its files go and the gap is reported as a problem, by path. Old FlagPerf result
directories (no ``run.json``) are read the same way with FlagPerf's sampling
periods and file formats.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chipperf.results.compute import aggregate, rounds
from chipperf.results.compute.fingerprint import differences, fingerprint
from chipperf.results.compute.measured import read_measured_peaks
from chipperf.results.compute.perf import RankLog
from chipperf.results.compute.preset import preset_label, smoke_text
from chipperf.results.compute.schema import CaseResult, Fingerprint, RunSummary
from chipperf.results.layout import fallback_record
from chipperf.results.read.collectround import NOT_ACCELERATOR, collect_round
from chipperf.results.read.context import NODE_DIR, ROUND_DIR, CaseContext, RoundSeries, RunContext
from chipperf.results.read.flagperf import INTERVAL_S as FLAGPERF_INTERVALS
from chipperf.results.read.flagperf import case_identity
from chipperf.results.read.hostchip import host_chip
from chipperf.results.read.tolerant import as_dict, as_int, as_list, as_str, is_number, subdirs
from chipperf_runtime.monitors.command import DEFAULT_INTERVAL_S

# a run's context and a round's reading live in context and collectround; importable from here
__all__ = ["CaseContext", "Collected", "NODE_DIR", "NOT_ACCELERATOR", "ROUND_DIR", "RoundSeries",
           "RunContext", "collect", "collect_case", "collect_round", "discover_cases",
           "load_run_json"]


@dataclass(frozen=True)
class Collected:
    summary: RunSummary
    series: tuple[RoundSeries, ...]


def collect(run_dir: Path, measured_peaks: Path | None = None) -> Collected:
    """``measured_peaks``: a base/ run whose GEMM peaks divide MFU too (default: the run's
    own MEASURED_PEAKS setting, when it had one)."""
    run_dir = Path(run_dir)
    run, problems = load_run_json(run_dir)
    test = as_dict(run.get("test"))
    measured = None
    peaks_dir = measured_peaks or as_str(test.get("measured_peaks"))
    if peaks_dir:
        measured, peak_problems = read_measured_peaks(Path(peaks_dir))
        problems += peak_problems
    source = "chipperf" if (run_dir / "run.json").is_file() else "flagperf"
    interval = test.get("monitor_interval_s")
    intervals = dict(FLAGPERF_INTERVALS) if source == "flagperf" else \
        {k: float(interval) if isinstance(interval, (int, float)) and is_number(interval)
         else DEFAULT_INTERVAL_S for k in FLAGPERF_INTERVALS}
    ctx = RunContext(run_dir, source, as_str(run.get("suite")), as_str(test.get("vendor")), intervals,
                     measured, as_str(run.get("chipperf_version")))
    cases, series = [], []
    for name, entry in discover_cases(run_dir, run, problems, source):
        case, case_series = collect_case(ctx, name, entry)
        cases.append(case)
        series += case_series
    vendors = sorted({c.vendor for c in cases if c.vendor})
    suites = {c.suite for c in cases}
    suite = ctx.suite or (suites.pop() if len(suites) == 1 else None)
    summary = RunSummary(
        run_id=as_str(run.get("run_id")) or run_dir.name, run_dir=str(run_dir), source=source,
        chipperf_version=as_str(run.get("chipperf_version")), suite=suite,
        vendor=ctx.vendor or (vendors[0] if len(vendors) == 1 else None),
        status=as_str(run.get("status")), started_at=as_str(run.get("started_at")),
        finished_at=as_str(run.get("finished_at")), hosts=tuple(as_dict(run.get("hosts"))),
        cases=tuple(cases), problems=tuple(problems))
    return Collected(summary, tuple(series))


def load_run_json(run_dir: Path) -> tuple[dict[str, Any], list[str]]:
    """run.json, or its fallback copy while the result root could not take the run's later
    record (results.layout.fallback_record), and a problem says so."""
    data, problems = _read_run_json(run_dir / "run.json", run_dir)
    run_id = as_str(data.get("run_id"))
    fallback = fallback_record(run_id) if run_id else None
    if fallback is None:
        return data, problems
    copy, copy_problems = _read_run_json(fallback, run_dir)
    if copy_problems or copy.get("run_id") != run_id:
        return data, problems
    return copy, [f"run.json: not the run's latest record, which the result root could not "
                  f"take: read from {fallback} (`chipperf collect {run_dir}` puts it back)"]


def _read_run_json(path: Path, run_dir: Path) -> tuple[dict[str, Any], list[str]]:
    if not run_dir.is_dir():
        return {}, [f"{run_dir}: not a directory"]
    if not path.is_file():
        return {}, ["run.json missing (read as a FlagPerf result directory)"]
    try:
        data = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
    except ValueError as exc:
        return {}, [f"{path.name}: not valid JSON ({exc}); summarised from the tree alone"]
    if not isinstance(data, dict):
        return {}, [f"{path.name}: not a JSON object; summarised from the tree alone"]
    return data, []


def discover_cases(run_dir: Path, run: Mapping[str, Any], problems: list[str],
                   source: str) -> list[tuple[str, Mapping[str, Any]]]:
    listed = as_dict(run.get("cases"))
    on_disk = sorted(p.name for p in subdirs(run_dir) if any(
        ROUND_DIR.match(r.name) or (source == "flagperf" and NODE_DIR.match(r.name))
        for r in subdirs(p)))
    for name in on_disk:
        if source == "chipperf" and name not in listed:
            problems.append(f"{name}/: case dir not listed in run.json")
    for name, entry in listed.items():
        if name not in on_disk and as_dict(entry).get("status") != "skipped":
            problems.append(f"{name}/: case listed in run.json has no round dir on disk")
    names = list(listed) + [n for n in on_disk if n not in listed]
    return [(name, as_dict(listed.get(name))) for name in names]


# ---------------------------------------------------------------- cases


def collect_case(run: RunContext, name: str, entry: Mapping[str, Any]
                 ) -> tuple[CaseResult, list[RoundSeries]]:
    ident = _identity(name, entry)
    vendor = as_str(entry.get("vendor")) or run.vendor
    ctx, on_disk = _case_context(run, name, ident, vendor)
    listed = {n: r for r in map(as_dict, as_list(entry.get("rounds")))
              if (n := as_int(r.get("number"))) is not None}
    problems = [f"{name}/round{n}/: round listed in run.json has no dir" for n in sorted(listed)
                if n not in on_disk and as_dict(listed[n]).get("nodes")]
    results, series, workloads, smoke, preset = [], [], [], "", ("", "")
    implementation = as_str(entry.get("implementation")) or ""
    method = ""
    for number in sorted(set(listed) | on_disk):
        result, round_series, found, log = collect_round(ctx, number, as_dict(listed.get(number)))
        results.append(result)
        series.append(round_series)
        workloads.append((number, _workload(ctx, ident, entry, log)))
        vendor = vendor or found
        submit = log.submit_info.value if log is not None and log.submit_info else None
        smoke = smoke or smoke_text(submit)
        implementation = implementation or as_str(as_dict(submit).get("implementation")) or ""
        method = method or as_str(as_dict(submit).get("method")) or ""
        if not preset[0] and log is not None and log.finished is not None:
            preset = preset_label(as_dict(log.finished.value).get("preset"))
    workload = _one_workload(name, workloads, problems)
    validated, note = _hardware(vendor or ctx.vendor, ctx.chip)
    case = CaseResult(
        dir_name=name, key=as_str(entry.get("key")) or "", suite=ctx.suite,
        model=as_str(ident.get("model")),
        framework=as_str(ident.get("framework")),
        family=(as_str(ident.get("framework")) or "").split("_", 1)[0] or None, chip=ctx.chip,
        chip_model=host_chip(run.run_dir / name),
        vendor=vendor or ctx.vendor, nnodes=ctx.nnodes, nproc=ctx.nproc,
        repeat=as_int(ident.get("repeat")), image=as_str(entry.get("image")), fingerprint=workload,
        status=as_str(entry.get("status")) or rounds.case_status(results),
        reason=as_str(entry.get("reason")) or "", hardware_validated=validated, hardware_note=note,
        smoke_test=smoke, preset=preset[0], preset_detail=preset[1], rounds=tuple(results),
        implementation=implementation, method=method,
        problems=tuple(problems))
    return aggregate.aggregate_case(case, ctx.suite), series


def _case_context(run: RunContext, name: str, ident: Mapping[str, Any], vendor: str | None
                  ) -> tuple[CaseContext, set[int]]:
    """The case's context and the numbers of its round dirs on disk (a FlagPerf inference
    case with node dirs and no round dirs: one flat round)."""
    on_disk = {int(m["number"]) for m in (ROUND_DIR.match(p.name) for p in subdirs(
        run.run_dir / name)) if m}
    flat = run.source == "flagperf" and not on_disk and any(
        NODE_DIR.match(p.name) for p in subdirs(run.run_dir / name))
    ctx = CaseContext(run, name, vendor, as_str(ident.get("chip")), as_int(ident.get("nnodes")),
                      as_int(ident.get("nproc")), flat)
    on_disk = on_disk or ({1} if flat else set())
    return ctx, on_disk


def _workload(ctx: CaseContext, ident: Mapping[str, Any], entry: Mapping[str, Any],
              log: RankLog | None) -> Fingerprint:
    framework = as_str(ident.get("framework"))
    submit = log.submit_info.value if log is not None and log.submit_info is not None else None
    return fingerprint(
        ctx.run.source, as_str(ident.get("model")), framework.split("_", 1)[0] if framework else None,
        submit, data_dir=as_str(entry.get("data_dir")), harness_version=ctx.run.version,
        chips=ctx.nnodes * ctx.nproc if ctx.nnodes and ctx.nproc else None,
        finish_info=log.finish_info if log is not None else None)


def _one_workload(name: str, workloads: list[tuple[int, Fingerprint]],
                  problems: list[str]) -> Fingerprint | None:
    """The case's fingerprint (its first round's); a round that ran another workload is a
    problem of the case (rounds of one case must measure one thing)."""
    if not workloads:
        return None
    first_number, first = workloads[0]
    for number, other in workloads[1:]:
        if other != first:
            problems.append(f"{name}/round{number}/: ran another workload than round "
                            f"{first_number}: {'; '.join(differences(first, other))}")
    return first


def _hardware(vendor: str | None, chip: str | None) -> tuple[bool | None, str]:
    """Whether chipperf's path for this vendor and chip has run on real hardware here."""
    from chipperf_runtime.vendors import hardware_status

    if not vendor:
        return None, "vendor unknown: no hardware status"
    return hardware_status(vendor, chip)


def _identity(name: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    from chipperf.config.model import CaseKey

    key = as_str(entry.get("key"))
    try:
        parsed = CaseKey.parse(key) if key else None
    except ValueError:
        parsed = None
    if parsed is None:
        found = case_identity(name)
        return {**found, "chip": as_str(entry.get("chip")) or found.get("chip")}
    return {"model": parsed.model, "framework": parsed.framework, "chip": parsed.chip,
            "nnodes": parsed.nnodes, "nproc": parsed.nproc, "repeat": parsed.repeat}


