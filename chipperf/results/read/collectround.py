"""One round of a run directory read into the result schema: its nodes' files, global rank
0's figures, what the nodes' telemetry adds (power, energy, MFU), its plot series."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from chipperf.results.compute import rounds
from chipperf.results.compute.inference import per_item
from chipperf.results.compute.measured import MeasuredPeaks
from chipperf.results.compute.mfu import causal_mfu, mfu
from chipperf.results.compute.perf import RankLog, performance, read_finish_info_log, read_rank_log
from chipperf.results.compute.plausible import Where, checked_round
from chipperf.results.compute.power import NodeSeries, node_result, node_series, read_node_files
from chipperf.results.compute.schema import (
    NodeResult,
    RoundResult,
)
from chipperf.results.layout import STATUSES, read_status
from chipperf.results.read.context import NODE_DIR, CaseContext, RoundSeries
from chipperf.results.read.flagperf import rank_zero_log
from chipperf.results.read.samples import Window
from chipperf.results.read.tolerant import as_dict, as_int, as_str, subdirs
from chipperf.suites import suite_of

NOT_ACCELERATOR = {"cpu_monitor.log", "mem_monitor.log", "pwr_monitor.log", "sys_monitor.log"}


def collect_round(case: CaseContext, number: int, entry: Mapping[str, Any]
                  ) -> tuple[RoundResult, RoundSeries, str | None, RankLog | None]:
    """The round's result, its plot series, the vendor its rank-0 log names and that log."""
    rel = case.dir_name if case.flat else f"{case.dir_name}/round{number}"
    round_dir = case.round_dir(number)
    listed = {str(k): as_str(v) for k, v in as_dict(entry.get("nodes")).items()}
    names = sorted(set(listed) | {p.name for p in subdirs(round_dir) if NODE_DIR.match(p.name)},
                   key=_node_rank)
    problems = [f"{rel}/{n}/: node listed in run.json has no dir" for n in names
                if n in listed and not (round_dir / n).is_dir()]
    log, fields, reasons = _rank_zero(round_dir, rel, names, problems, case.suite)
    vendor = case.vendor or _vendor_of(log)
    window = Window(fields["train_start_ms"], fields["train_end_ms"]) \
        if "train_start_ms" in fields else None
    collected = [_collect_node(case, round_dir / n, n, listed.get(n), window, vendor)
                 for n in names]
    nodes = [node for node, _ in collected]
    problems += [f"{rel}/{node.name}/{p}" for node in nodes for p in node.problems]
    fields.update(_combined(case, vendor, fields, nodes, reasons))
    status, reason = rounds.round_status(entry, nodes, log, fields)
    result = RoundResult(
        number=number, status=status, reason=reason, started_ms=as_int(entry.get("started_ms")),
        finished_ms=as_int(entry.get("finished_ms")), late=entry.get("late") is True or None,
        nodes=tuple(nodes), reasons=reasons,
        problems=tuple(problems), **fields)
    result = checked_round(result, Where(rel, vendor, case.chip, case.suite), case.run.intervals)
    plots = RoundSeries(case.dir_name, number, window, result.started_ms,
                        tuple(plot for _, plot in collected))
    return result, plots, vendor, log


def _rank_zero(round_dir: Path, rel: str, names: list[str], problems: list[str],
               suite: str | None) -> tuple[RankLog | None, dict[str, Any], dict[str, str]]:
    """Global rank 0's log (in the lowest node rank's dir) and the figures it gives."""
    if not names:
        return None, {}, {"finished": f"{rel}/ has no node dir"}
    node = round_dir / names[0]
    name = rank_zero_log(node).name
    if not (node / name).is_file() and (node / "container.out.log").is_file():
        name = "container.out.log"                  # FlagPerf inference: its Finish Info
        log = read_finish_info_log(node / name)
    else:
        log = read_rank_log(node / name)
    problems += [f"{rel}/{names[0]}/{p}" for p in log.problems]
    fields, reasons = performance(log, f"{names[0]}/{name}", suite)
    return log, fields, reasons


def _combined(case: CaseContext, vendor: str | None, fields: dict[str, Any],
              nodes: list[NodeResult], reasons: dict[str, str]) -> dict[str, Any]:
    out, why = rounds.combine_nodes(nodes)
    reasons.update(why)
    chips = fields.get("world_size") or (case.nnodes * case.nproc
                                         if case.nnodes and case.nproc else None)
    suite = case.suite
    result = mfu(fields, vendor, case.chip, chips, suite)
    out.update(mfu=result.value, mfu_dtype=result.dtype, chips=result.chips,
               peak_flops_per_chip=result.peak_flops_per_chip)
    if result.value is None and fields.get("mfu_reported") is not None:
        out.update(mfu=fields["mfu_reported"])   # FlagPerf's own MFU: its peak, its FLOPs
        reasons["mfu"] = (f"as the FlagPerf case printed it (peak {fields.get('reported_peak_tflops')}"
                          " TFLOPS per chip, its 'Theory TFLOPS'), not computed by chipperf")
    elif result.value is None:
        reasons["mfu"] = result.reason
    out["mfu_causal"], why_not = causal_mfu(fields, result.value)
    if why_not:
        reasons["mfu_causal"] = why_not
    if case.run.measured is not None and not suite_of(suite).measures_peak:
        out.update(_measured_mfu(case.run.measured, vendor, case.chip, chips, fields, reasons))
    work = fields.get("window_work")
    out.update(rounds.per_joule(work, out, reasons))
    if suite_of(suite).infers:
        out.update(per_item(work, out, reasons))
    return out


def _measured_mfu(peaks: MeasuredPeaks, vendor: str | None, chip: str | None,
                  chips: int | None, fields: Mapping[str, Any],
                  reasons: dict[str, str]) -> dict[str, Any]:
    """MFU against the base/ run's measured GEMM peak of the same vendor, chip and dtype."""
    peak, why = peaks.peak(vendor, chip, fields.get("dtype"))
    work, per_unit, seconds = (fields.get(k) for k in ("window_work", "flops_per_unit",
                                                        "train_time_s"))
    if peak is None or not (work and per_unit and seconds and chips):
        reasons["mfu_measured"] = why or "achieved FLOP/s unknown (see mfu)"
        return {}
    return {"mfu_measured": work * per_unit / seconds / (peak.flops_per_s * chips),
            "measured_peak_flops_per_chip": peak.flops_per_s,
            "measured_peak_source": peak.source}


def _collect_node(case: CaseContext, node_dir: Path, name: str, listed: str | None,
                  window: Window | None, vendor: str | None) -> tuple[NodeResult, NodeSeries]:
    match = NODE_DIR.match(name)
    host, rank = (match["host"], int(match["rank"])) if match else (name, None)
    status, reason = read_status(node_dir) if node_dir.is_dir() else (None, "node dir missing")
    problems = []
    if status is None and listed is not None:
        status = listed
    if node_dir.is_dir() and case.run.source == "chipperf":
        if not (node_dir / "status").is_file():
            problems.append("status: missing")
        elif status not in STATUSES:
            problems.append(f"status: {status!r} is not one of {', '.join(STATUSES)}")
    accel, absent = _accelerator_file(node_dir, vendor)
    files = read_node_files(node_dir, window, dict(case.run.intervals), accel, absent)
    node = node_result(name, host, rank, status, reason if node_dir.is_dir() else "node dir missing",
                       files)
    node = replace(node, problems=tuple(problems) + node.problems)
    return node, node_series(name, files)


def _accelerator_file(node_dir: Path, vendor: str | None) -> tuple[str | None, str]:
    """The node's accelerator monitor file name, or (None, why there is none)."""
    if vendor:
        from chipperf_runtime.vendors import get_vendor

        try:
            if get_vendor(vendor).accelerator_sampler is None:
                return None, f"vendor {vendor} has no accelerator telemetry"
        except KeyError:
            pass
        return f"{vendor}_monitor.log", ""
    found = sorted(p.name for p in node_dir.glob("*_monitor.log") if p.name not in NOT_ACCELERATOR)
    return (found[0], "") if found else (None, "vendor unknown and no <vendor>_monitor.log found")


def _vendor_of(log: RankLog | None) -> str | None:
    info = log.submit_info if log is not None else None
    if info is None and log is not None and log.finish_info is not None:
        return as_str(log.finish_info.get("vendor"))
    return as_str(info.value.get("vendor")) if info is not None else None


def _node_rank(name: str) -> tuple[int, str]:
    match = NODE_DIR.match(name)
    return (int(match["rank"]) if match else 1 << 30, name)
