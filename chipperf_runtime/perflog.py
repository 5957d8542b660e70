"""PerfLog: the case -> engine protocol.

A case prints one event per line::

    [PerfLog] {"event": NAME, "value": {...}, "metadata": {"file", "lineno", "time_ms", "rank"}}

``PerfLogger`` is what case code calls; ``parse_lines`` is the pure parser the
results code uses: lines in, ``(events, problems)`` out, never raising on a bad
line. This module imports only the standard library: it runs inside every
case container.

The FINISHED schema (its keys, their types, the optional keys and their checks) is
``chipperf_runtime.perflog_schema``; its names are importable from here as before.

SUBMIT_INFO carries ``workload`` (training driver, inference runners): the case's typed
``{"global_batch", "seq_len", "image_size", "precision"}`` (chipperf_runtime/workload.py;
docs/results.md "The case's workload").

STEP_END from the training driver carries, with ``work``: ``throughput_so_far``,
``work_so_far`` (all ranks: rank 0's count x world size), ``train_elapsed_s``,
``warmup_steps`` and ``work_unit``; a round cut before FINISHED gets the throughput of its
completed steps from them (chipperf/results/compute/cut.py).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from chipperf_runtime.perflog_schema import (
    FINISHED_KEYS,
    INFERENCE_FINISHED_KEYS,
    INFERENCE_OPTIONAL_KEYS,
    TRAINING_OPTIONAL_KEYS,
    finished_problems,
)

__all__ = ["CASE_ERROR", "EVENTS", "FINISHED_KEYS", "INFERENCE_FINISHED_KEYS",
           "INFERENCE_OPTIONAL_KEYS", "MARKER", "TRAINING_OPTIONAL_KEYS", "Event",
           "PerfLogger", "Problem", "case_error", "finished_problems", "iter_records",
           "normalize_finished", "parse_lines", "parse_record"]

MARKER = "[PerfLog] "

EVENTS = (
    "SUBMIT_INFO",
    "INIT_START",
    "INIT_END",
    "TRAIN_START",
    "EPOCH_BEGIN",
    "EPOCH_END",
    "STEP_END",
    "EVALUATE",
    "TRAIN_END",
    "FINISHED",
)

# FlagPerf's historical FINISHED keys -> chipperf's. FlagPerf cases differ in
# spelling (one is misspelt), so several old names map to one new one.
FLAGPERF_KEYS: Mapping[str, str] = {
    "e2e_time": "e2e_time_s",
    "raw_train_time": "train_time_s",
    "train_time": "train_time_s",
    "train_no_eval_time": "train_no_eval_time_s",
    "no_eval_time": "train_no_eval_time_s",
    "pure_training_computing_time": "pure_compute_time_s",
    "pure_compute_time": "pure_compute_time_s",
    "num_trained_samples": "work_done",
    "trained_samples": "work_done",
}
FLAGPERF_THROUGHPUT: Mapping[str, str] = {
    "throughput(ips)_raw": "raw",
    "throughput(ips)_no_eval": "no_eval",
    "throughput(ips)_pure_compute": "pure_compute",
    "training_sequences_per_second": "raw",
    "training_samples_per_second": "raw",
    "training_images_per_second": "raw",
    "training_tokens_per_second": "raw",
    "tokens_per_second": "raw",
    "p_whole": "raw",
    "p_train": "no_eval",
    "p_core": "pure_compute",
}
# Throughput keys that count tokens, not samples.
FLAGPERF_TOKEN_KEYS = ("training_tokens_per_second", "tokens_per_second")
# Preferred FlagPerf metric keys, in order, before any other numeric "final_*" key; a
# loss is chosen only when there is no other final metric.
FLAGPERF_METRICS = ("final_accuracy", "final_acc", "final_mlm_accuracy", "final_mlm_accuarcy",
                    "final_top1", "final_map", "final_eval_acc", "final_map_bbox",
                    "final_loss", "final_eval_loss")


@dataclass(frozen=True)
class Event:
    name: str
    value: Mapping[str, Any]
    time_ms: int | None
    rank: int | None
    file: str | None = None
    lineno: int | None = None
    line: int = 0  # line number in the log the event was read from (1-based)


@dataclass(frozen=True)
class Problem:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


# ---------------------------------------------------------------- writing


@dataclass
class PerfLogger:
    """Writes PerfLog events; ``rank`` defaults to $RANK."""

    rank: int | None = None
    stream: TextIO | None = None
    # modules whose frames are skipped when naming the caller (e.g. a case driver's own)
    skip_modules: tuple[str, ...] = ()
    _clock: Any = field(default=time.time, repr=False)

    def __post_init__(self) -> None:
        if self.rank is None and os.environ.get("RANK", "").isdigit():
            self.rank = int(os.environ["RANK"])

    def _caller(self) -> Any:
        frame = sys._getframe(2)
        while frame.f_back is not None and frame.f_globals.get("__name__", "").split(".")[0] \
                in self.skip_modules:
            frame = frame.f_back
        return frame

    def event(self, name: str, value: Mapping[str, Any] | None = None) -> dict:
        if name not in EVENTS:
            raise ValueError(f"unknown PerfLog event {name!r}; known: {', '.join(EVENTS)}")
        caller = self._caller()
        record = {
            "event": name,
            "value": dict(value or {}),
            "metadata": {
                "file": caller.f_code.co_filename,
                "lineno": caller.f_lineno,
                "time_ms": int(self._clock() * 1000),
                "rank": self.rank,
            },
        }
        out = self.stream or sys.stdout
        out.write(MARKER + json.dumps(record, default=_jsonable) + "\n")
        out.flush()
        return record


def _jsonable(obj: Any) -> Any:
    for cast in (float, int, str):
        try:
            return cast(obj)
        except (TypeError, ValueError):
            continue
    return repr(obj)


# ---------------------------------------------------------------- parsing


# What a case prints (stderr, one line) when it stops on purpose: the training driver's
# ``chipperf case error: ...`` and the inference runner's ``chipperf inference case X: error: ...``.
CASE_ERROR = re.compile(r"^chipperf (?:inference )?case(?: [^:]+:)? error: (?P<message>.+)$")


def case_error(lines: Iterable[str]) -> str | None:
    """The last case-error message in ``lines`` (None when the case printed none)."""
    found = None
    for line in lines:
        match = CASE_ERROR.match(line.strip())
        if match:
            found = match.group("message")
    return found


def parse_lines(lines: Iterable[str]) -> tuple[list[Event], list[Problem]]:
    """Parse PerfLog events out of arbitrary output; other lines are ignored."""
    events: list[Event] = []
    problems: list[Problem] = []
    for event, problem in iter_records(lines):
        if event is not None:
            events.append(event)
        if problem is not None:
            problems.append(problem)
    return events, problems


def iter_records(lines: Iterable[str]) -> Iterator[tuple[Event | None, Problem | None]]:
    """``parse_lines`` one PerfLog line at a time, for logs too long to hold."""
    for number, line in enumerate(lines, start=1):
        at = line.find(MARKER)
        if at >= 0:
            yield parse_record(line[at + len(MARKER):].strip(), number)


def parse_record(text: str, line: int = 0) -> tuple[Event | None, Problem | None]:
    try:
        record = json.loads(text)
    except ValueError as exc:
        return None, Problem(line, f"not valid JSON after {MARKER.strip()}: {exc}")
    if not isinstance(record, dict) or not isinstance(record.get("event"), str):
        return None, Problem(line, "a PerfLog record must be an object with an 'event' string")
    value = record.get("value")
    meta: dict[str, Any] = record["metadata"] if isinstance(record.get("metadata"), dict) else {}
    event = Event(
        name=record["event"],
        value=value if isinstance(value, dict) else {"value": value},
        time_ms=_int_or_none(meta.get("time_ms")),
        rank=_int_or_none(meta.get("rank")),
        file=meta.get("file"),
        lineno=_int_or_none(meta.get("lineno")),
        line=line,
    )
    if event.name not in EVENTS:
        return event, Problem(line, f"unknown event {event.name!r}")
    return event, None


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value)
    return None


def normalize_finished(value: Mapping[str, Any]) -> dict[str, Any]:
    """Map FlagPerf's historical FINISHED keys onto chipperf's schema (new keys win).

    FlagPerf values carry no unit: samples are assumed (tokens for its token-rate keys);
    its metric's target is not in FINISHED (chipperf.results takes it from SUBMIT_INFO's
    ``config``, its ``target_*`` entry)."""
    out: dict[str, Any] = {}
    for old, new in FLAGPERF_KEYS.items():
        if old in value:
            out.setdefault(new, value[old])
    throughput = _flagperf_throughput(value)
    if throughput:
        out["throughput"] = throughput
        out["work_unit"] = throughput["unit"].split("/")[0]
    metric = _flagperf_metric(value)
    if metric:
        out["metric"] = metric
    if "converged" in value:
        out["converged"] = bool(value["converged"])
    out.update({k: v for k, v in value.items() if k in FINISHED_KEYS
                or k in INFERENCE_FINISHED_KEYS or k in INFERENCE_OPTIONAL_KEYS
                or k in TRAINING_OPTIONAL_KEYS})
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _flagperf_throughput(value: Mapping[str, Any]) -> dict[str, Any]:
    throughput: dict[str, Any] = {}
    unit = "samples/s"
    for old, kind in FLAGPERF_THROUGHPUT.items():
        if _is_number(value.get(old)) and kind not in throughput:
            throughput[kind] = value[old]
            if old in FLAGPERF_TOKEN_KEYS:
                unit = "tokens/s"
    if throughput:
        throughput["unit"] = unit
    return throughput


def _flagperf_metric(value: Mapping[str, Any]) -> dict[str, Any] | None:
    finals = [k for k in value if k.startswith("final_") and _is_number(value[k])]
    if not finals:
        return None

    def rank(key: str) -> tuple[bool, int]:  # quality metrics before losses, known keys first
        known = FLAGPERF_METRICS.index(key) if key in FLAGPERF_METRICS else len(FLAGPERF_METRICS)
        return "loss" in key, known

    name = min(finals, key=rank)
    return {"name": name[len("final_"):], "value": value[name], "target": None,
            "higher_is_better": "loss" not in name}
