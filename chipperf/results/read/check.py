"""``chipperf check``: does a run directory follow the result-directory contract?

Like a compliance checker it lists EVERY problem, each as ``path[:line]: what``
(paths relative to the run dir), and never stops at the first. What is checked is
in docs/results.md ("Checking a directory"): run.json's keys, types and closed
status sets; that every case / round / node listed exists on disk and the other
way round; each node's status file and, for a node that succeeded, its required
files; every PerfLog line's grammar (JSON, known event, metadata.time_ms and
metadata.rank, rank matching the file, time never going back); rank 0 of node 0
logging INIT_START, TRAIN_START, TRAIN_END and a complete FINISHED (training's or
inference's schema, by run.json ``suite``) in that order;
every monitor line being a JSON object with a numeric ts_ms that never goes back; and
no figure a chip cannot produce (chipperf.results.compute.plausible): a share of a peak
above 100 %, power or energy over a window shorter than two monitor intervals.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from chipperf.results.compute.plausible import case_errors
from chipperf.results.layout import STATUSES, fallback_record
from chipperf.results.read.checklogs import REQUIRED_EVENTS, check_monitor_log, check_rank_log
from chipperf.results.read.checkreport import Report
from chipperf.results.read.collect import collect
from chipperf.suites import suite_names, suite_of

# the report and the log grammars live in checkreport and checklogs; importable from here
__all__ = ["CASE_STATUSES", "CaseFacts", "NODE_DIR", "NODE_FILES", "RANK_LOG", "REQUIRED_EVENTS",
           "ROUND_DIR", "RUN_STATUSES", "Report", "UNFINISHED_CASE", "check", "check_monitor_log",
           "check_rank_log", "subdirs"]

RUN_STATUSES = ("running", "succeeded", "failed", "canceled")
CASE_STATUSES = ("pending", "running", "succeeded", "failed", "timeout", "canceled", "skipped")
UNFINISHED_CASE = ("pending", "running")
NODE_FILES = ("launcher.log", "sys_info.json", "cpu_monitor.log", "mem_monitor.log",
              "pwr_monitor.log")
NODE_DIR = re.compile(r"^.+_noderank(\d+)$")
ROUND_DIR = re.compile(r"^round(\d+)$")
RANK_LOG = re.compile(r"^rank(\d+)\.out\.log$")


def check(run_dir: Path) -> Report:
    run_dir = Path(run_dir)
    report = Report()
    if not run_dir.is_dir():
        report.add(str(run_dir), "not a directory")
        return report
    run = _run_json(run_dir, report)
    cases: dict[str, Any] = run["cases"] if isinstance(run.get("cases"), dict) else {}
    vendor = _dig(run, "test", "vendor")
    suite = suite_of(run.get("suite")).name
    on_disk = {p.name for p in subdirs(run_dir) if any(ROUND_DIR.match(r.name) for r in subdirs(p))}
    for name in sorted(on_disk - set(cases)):
        report.add(f"{name}/", "case dir not listed in run.json cases")
    for name, entry in cases.items():
        entry = entry if isinstance(entry, dict) else {}
        if run.get("status") in RUN_STATUSES[1:] and entry.get("status") in UNFINISHED_CASE:
            report.add(f"run.json: cases[{name!r}]", f"status {entry['status']!r} in a run whose "
                                                     f"status is {run['status']!r}")
        _check_case(run_dir, name, entry, vendor, suite, report)
    for name in sorted(on_disk - set(cases)):
        _check_case(run_dir, name, {}, vendor, suite, report)
    _check_figures(run_dir, report)
    return report


def _check_figures(run_dir: Path, report: Report) -> None:
    """Figures no chip can produce (chipperf.results.compute.plausible): a share of a peak
    above 100 %, power or energy over a window shorter than two monitor intervals."""
    for case in collect(run_dir).summary.cases:
        for error in case_errors(case):
            report.add(f"{case.dir_name}/", f"ERROR {error}")


# ---------------------------------------------------------------- run.json

_RUN_KEYS: Mapping[str, tuple[type, ...]] = {
    "run_id": (str,), "chipperf_version": (str,), "suite": (str,), "started_at": (str,),
    "finished_at": (str, type(None)), "status": (str,), "cluster": (dict,), "test": (dict,),
    "hosts": (dict,), "cases": (dict,)}
_CASE_KEYS: Mapping[str, tuple[type, ...]] = {
    "key": (str,), "vendor": (str,), "chip": (str,), "image": (str, type(None)), "status": (str,),
    "reason": (str,), "rounds": (list,)}
_ROUND_KEYS: Mapping[str, tuple[type, ...]] = {
    "number": (int,), "status": (str,), "reason": (str,), "started_ms": (int,),
    "finished_ms": (int, type(None)), "nodes": (dict,)}


def _run_json(run_dir: Path, report: Report) -> dict[str, Any]:
    path = run_dir / "run.json"
    if not path.is_file():
        report.add("run.json", "missing")
        return {}
    try:
        run = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        report.add("run.json", f"not valid JSON: {exc}")
        return {}
    if not isinstance(run, dict):
        report.add("run.json", "not a JSON object")
        return {}
    _keys(run, _RUN_KEYS, "run.json", report)
    _closed(run.get("status"), RUN_STATUSES, "run.json: status", report)
    _closed(run.get("suite"), tuple(suite_names()), "run.json: suite", report)
    for key in ("started_at", "finished_at"):
        if isinstance(run.get(key), str) and not _iso(run[key]):
            report.add("run.json", f"{key} {run[key]!r} is not ISO 8601")
    if run.get("status") != "running" and "finished_at" in run and run["finished_at"] is None:
        report.add("run.json", f"status {run.get('status')!r} but finished_at is null")
    if run.get("status") == "running":
        report.add("run.json", _fallen_back(run_dir, run) or _still_running(run_dir))
    return run


def _fallen_back(run_dir: Path, run: Mapping[str, Any]) -> str:
    """Why a record says running when its run wrote its later record elsewhere ('' if not)."""
    copy = fallback_record(run["run_id"]) if isinstance(run.get("run_id"), str) else None
    return "" if copy is None else (
        f"status 'running' here, but the run's later record is {copy} (the result root could "
        f"not take it): `chipperf collect {run_dir}` puts it back")


def _still_running(run_dir: Path) -> str:
    """Why a record says running: its master holds the run's lock, or is gone."""
    from chipperf.run.lease import master_alive, master_of

    alive, who = master_alive(run_dir), master_of(run_dir)
    master = f"pid {who.get('pid')} on {who.get('node')}" if who else "its master"
    if alive:
        return (f"status 'running': the run is going on ({master} holds it); its results are "
                "incomplete until it ends")
    if alive is False:
        return (f"status 'running' but its master ({master}) is gone: it was killed or its "
                "machine went down before closing the record; the results are incomplete "
                f"(`chipperf collect {run_dir}` brings home what the hosts kept)")
    return ("status 'running': the run is still going, or its master stopped without closing "
            "the record (killed, or the machine went down); its cases' results are incomplete "
            "either way")


def _keys(obj: Mapping[str, Any], keys: Mapping[str, tuple[type, ...]], where: str,
          report: Report) -> None:
    for key, types in keys.items():
        if key not in obj:
            report.add(where, f"lacks {key!r}")
        elif not isinstance(obj[key], types) or (isinstance(obj[key], bool) and bool not in types):
            report.add(where, f"{key!r} has type {type(obj[key]).__name__}")


def _closed(value: Any, allowed: tuple[str, ...], where: str, report: Report) -> None:
    if isinstance(value, str) and value not in allowed:
        report.add(where, f"{value!r} is not one of {', '.join(allowed)}")


def _iso(text: str) -> bool:
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
        return True
    except ValueError:
        return False


def _dig(obj: Any, *keys: str) -> Any:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


# ---------------------------------------------------------------- tree


@dataclass(frozen=True)
class CaseFacts:
    """What the checks of a case's rounds and nodes need to know about the case."""

    nproc: int | None               # ranks per node (from the case key)
    vendor: Any                     # names the required accelerator monitor file
    suite: str                      # picks the FINISHED schema


def _check_case(run_dir: Path, name: str, entry: dict[str, Any], vendor: Any, suite: str,
                report: Report) -> None:
    report.cases += 1
    where = f"run.json: cases[{name!r}]"
    nproc = None
    if entry:
        _keys(entry, _CASE_KEYS, where, report)
        _closed(entry.get("status"), CASE_STATUSES, f"{where}: status", report)
        nproc = _nproc(entry.get("key"), where, report)
        vendor = entry.get("vendor") or vendor
    case_dir = run_dir / name
    listed = {r.get("number"): r for r in entry.get("rounds", []) if isinstance(r, dict)} \
        if isinstance(entry.get("rounds"), list) else {}
    on_disk = {int(m[1]) for m in (ROUND_DIR.match(p.name) for p in subdirs(case_dir)) if m}
    if entry and entry.get("status") != "skipped" and not case_dir.is_dir():
        report.add(f"{name}/", "case dir missing")
    unlisted = sorted(on_disk - set(listed))
    for number in unlisted if entry else ():
        report.add(f"{name}/round{number}/", "round dir not listed in run.json")
    facts = CaseFacts(nproc, vendor, suite)
    for listed_number, round_entry in listed.items():
        _check_round(case_dir, f"{name}/round{listed_number}", round_entry,
                     f"{where}: round {listed_number}", facts, report)
    for number in unlisted:
        _check_round(case_dir, f"{name}/round{number}", {"number": number}, "", facts, report)


def _nproc(key: Any, where: str, report: Report) -> int | None:
    from chipperf.config.model import CaseKey

    if not isinstance(key, str):
        return None
    try:
        return CaseKey.parse(key).nproc
    except ValueError as exc:
        report.add(where, f"key {key!r}: {exc}")
        return None


def _check_round(case_dir: Path, rel: str, entry: dict[str, Any], where: str,
                 facts: CaseFacts, report: Report) -> None:
    report.rounds += 1
    if where:
        _keys(entry, _ROUND_KEYS, where, report)
        _closed(entry.get("status"), STATUSES, f"{where}: status", report)
    round_dir = case_dir / rel.rsplit("/", 1)[1]
    nodes: dict[str, Any] = entry["nodes"] if isinstance(entry.get("nodes"), dict) else {}
    if nodes and not round_dir.is_dir():
        report.add(f"{rel}/", "round dir missing")
    on_disk = {p.name for p in subdirs(round_dir)}
    for name in sorted(on_disk - set(nodes)):
        if where or not NODE_DIR.match(name):
            report.add(f"{rel}/{name}/", "node dir not listed in run.json"
                       if NODE_DIR.match(name) else "not a <host>_noderank<K> dir")
    for name, status in nodes.items():
        _closed(status, STATUSES, f"{where}: nodes[{name!r}]", report)
    for name in sorted(set(nodes) | {n for n in on_disk if NODE_DIR.match(n)}):
        node_dir = round_dir / name
        if not node_dir.is_dir():
            report.add(f"{rel}/{name}/", "node dir missing")
            continue
        _check_node(node_dir, f"{rel}/{name}", nodes.get(name), facts, report)


def _check_node(node_dir: Path, rel: str, listed: Any, facts: CaseFacts,
                report: Report) -> None:
    report.nodes += 1
    nproc, vendor, suite = facts.nproc, facts.vendor, facts.suite
    status = _status(node_dir, rel, listed, report)
    match = NODE_DIR.match(node_dir.name)
    node_rank = int(match[1]) if match else 0
    ranks = range(node_rank * nproc, (node_rank + 1) * nproc) if nproc else ()
    if status == "succeeded":
        for name in NODE_FILES + _accelerator_file(vendor) + tuple(
                f"rank{r}.out.log" for r in ranks):
            if not (node_dir / name).is_file():
                report.add(f"{rel}/{name}", "missing (the node succeeded)")
    if (node_dir / "sys_info.json").is_file():
        _json_file(node_dir / "sys_info.json", f"{rel}/sys_info.json", report)
    for path in sorted(node_dir.iterdir()):
        found = RANK_LOG.match(path.name)
        if found:
            required = status == "succeeded" and node_rank == 0 and found[1] == "0"
            check_rank_log(path, f"{rel}/{path.name}", int(found[1]), required, report, suite)
        elif path.name.endswith("_monitor.log"):
            check_monitor_log(path, f"{rel}/{path.name}", report)


def _status(node_dir: Path, rel: str, listed: Any, report: Report) -> str | None:
    path = node_dir / "status"
    if not path.is_file():
        report.add(f"{rel}/status", "missing")
        return None
    lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    status = lines[0].strip() if lines else ""
    if status not in STATUSES:
        report.add(f"{rel}/status:1", f"{status!r} is not one of {', '.join(STATUSES)}")
    elif isinstance(listed, str) and listed != status:
        report.add(f"{rel}/status:1", f"says {status!r} but run.json says {listed!r}")
    return status


def _accelerator_file(vendor: Any) -> tuple[str, ...]:
    if not isinstance(vendor, str):
        return ()
    from chipperf_runtime.vendors import get_vendor

    try:
        has_sampler = get_vendor(vendor).accelerator_sampler is not None
    except KeyError:
        return ()
    return (f"{vendor}_monitor.log",) if has_sampler else ()


def _json_file(path: Path, rel: str, report: Report) -> None:
    try:
        value = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        report.add(rel, f"not valid JSON: {exc}")
        return
    if not isinstance(value, dict):
        report.add(rel, "not a JSON object")




def subdirs(path: Path) -> list[Path]:
    """The folders in ``path`` (hidden ones left out), sorted; none where it cannot be read."""
    try:
        return sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []
