"""The log grammars ``chipperf check`` holds every line to: a rank's PerfLog (JSON, a known
event, metadata.time_ms and metadata.rank, rank matching the file, time never going back;
global rank 0's required events in order, a complete FINISHED) and a monitor log (JSON
objects with a numeric ts_ms that never goes back per source)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chipperf.results.read.checkreport import Report
from chipperf.results.read.samples import read_lines
from chipperf_runtime.perflog import EVENTS, MARKER, finished_problems, parse_record

REQUIRED_EVENTS = ("INIT_START", "TRAIN_START", "TRAIN_END", "FINISHED")


def check_rank_log(path: Path, rel: str, rank: int, required: bool, report: Report,
                   suite: str = "training") -> None:
    """Every PerfLog line of one rank's log; ``required``: the events of global rank 0;
    FINISHED is held to the schema of ``suite`` (chipperf_runtime.perflog.finished_problems)."""
    seen: dict[str, int] = {}
    last_ms: int | None = None
    for number, text, clean in read_lines(path):
        if not clean:
            report.add(f"{rel}:{number}", "not valid UTF-8")
        at = text.find(MARKER)
        if at < 0:
            continue
        report.perflog_lines += 1
        event, problem = parse_record(text[at + len(MARKER):].strip(), number)
        if problem is not None:
            report.add(f"{rel}:{number}", problem.message)
        if event is None:
            continue
        last_ms = _check_event(event, rel, number, rank, last_ms, report)
        if event.name in EVENTS:
            seen.setdefault(event.name, event.time_ms if event.time_ms is not None else -1)
        if event.name == "FINISHED":
            for message in finished_problems(event.value, suite):
                report.add(f"{rel}:{number}", message)
    if required:
        _required_events(seen, rel, report)


def _check_event(event: Any, rel: str, number: int, rank: int, last_ms: int | None,
                 report: Report) -> int | None:
    where = f"{rel}:{number}"
    if event.time_ms is None:
        report.add(where, f"{event.name}: metadata.time_ms missing or not a number")
        return last_ms
    if event.rank is None:
        report.add(where, f"{event.name}: metadata.rank missing or not a number")
    elif event.rank != rank:
        report.add(where, f"{event.name}: metadata.rank {event.rank} in rank{rank}'s log")
    if last_ms is not None and event.time_ms < last_ms:
        report.add(where, f"{event.name}: time_ms {event.time_ms} is before the previous "
                          f"event's {last_ms}")
        return last_ms
    return event.time_ms


def _required_events(seen: Mapping[str, int], rel: str, report: Report) -> None:
    missing = [e for e in REQUIRED_EVENTS if e not in seen]
    for name in missing:
        report.add(rel, f"no {name} event (required from global rank 0)")
    order = [seen[e] for e in REQUIRED_EVENTS if e in seen and seen[e] >= 0]
    if order != sorted(order):
        report.add(rel, "events out of order: expected " + " <= ".join(REQUIRED_EVENTS))


def check_monitor_log(path: Path, rel: str, report: Report) -> None:
    """Every line a JSON object with a numeric ts_ms, per source never going back."""
    last: dict[str, float] = {}
    for number, text, clean in read_lines(path):
        if not clean:
            report.add(f"{rel}:{number}", "not valid UTF-8")
        if not text.strip():
            continue
        report.monitor_lines += 1
        try:
            record = json.loads(text)
        except ValueError:
            report.add(f"{rel}:{number}", "not valid JSON (truncated or corrupt line)")
            continue
        ts = record.get("ts_ms") if isinstance(record, dict) else None
        if isinstance(ts, bool) or not isinstance(ts, (int, float)):
            report.add(f"{rel}:{number}", "not a JSON object with a numeric ts_ms")
            continue
        source = str(record.get("source", ""))
        if source in last and ts < last[source]:
            label = f"{source} line" if source else "line"
            report.add(f"{rel}:{number}", f"ts_ms {ts} is before the previous {label}'s "
                                          f"{last[source]}")
        last[source] = max(ts, last.get(source, ts))
