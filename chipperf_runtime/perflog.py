"""PerfLog: the case -> engine protocol.

A case prints one event per line::

    [PerfLog] {"event": NAME, "value": {...}, "metadata": {"file", "lineno", "time_ms", "rank"}}

``PerfLogger`` is what case code calls; ``parse_lines`` is the pure parser the
results code uses: lines in, ``(events, problems)`` out, never raising on a bad
line. This module imports only the standard library: it runs inside every
case container.

FINISHED schema (times in seconds; docs/results.md; the inference form: docs/inference.md)::

    e2e_time_s, train_time_s, train_no_eval_time_s, pure_compute_time_s   float
    work_unit            "samples" | "tokens"
    work_done            int, samples or tokens trained, all ranks together
    throughput           {"raw", "no_eval", "pure_compute": float, "unit": "<work_unit>/s"}
    converged            bool
    metric               {"name", "value", "target", "higher_is_better"}
    flops_per_unit       float, training FLOPs (forward + backward) per sample or token
    dtype                "fp32" | "bf16" | "fp16" | ...
    world_size           int
    peak_memory_bytes    int or null (null when the framework cannot tell)

and, from the training driver, ``run_mode`` (optional; docs/results.md "Run modes")::

    run_mode             {"mode": "convergence" | "performance", "warmup_steps": int,
                          "timed_steps": int}; in performance mode also "timed_window_s",
                          "timed_work", "timed_first_step", "timed_last_step" and "whole_run"
                          (the whole train window's times, work_done and throughput). The
                          top-level times, work_done and throughput are then the timed
                          window's (steady state, after the warm-up), converged is false and
                          metric.value is null unless the case measured one.
    data_mode            "real" | "predecoded" | "synthetic" (optional; vision cases): "predecoded"
                          read images decoded ahead of the run (imagecls.predecoded); "synthetic" trained on
                          device-resident random batches, labelled "synthetic: compute only"
    parameters           {"trainable": int, "total": int} (optional; the LLM cases): the model's
                          parameter counts; a LoRA case trains the adapters only
    execution            {name: value} (optional; PyTorch loops): how the model ran, e.g. "compile"
                          ("eager" or "torch.compile(inductor, mode=default)"), "attention" ("sdpa"),
                          "fused_optimizer" (bool), "channels_last", "autocast"
    peak_rss_bytes       int (optional; the training driver): rank 0's peak resident set, host
                          memory (a sweep's memory figure on a cpu, docs/sweeps.md)
    stages               {stage: that stage's FINISHED value} (optional; a case training stages
                          one after the other, llava1.5_7b's "both"): the top-level figures are
                          then the stages' together (training/driver/stages.py)

SUBMIT_INFO carries ``workload`` (training driver, inference runners): the case's typed
``{"global_batch", "seq_len", "image_size", "precision"}`` (chipperf_runtime/workload.py;
docs/results.md "The case's workload").

STEP_END from the training driver carries, with ``work``: ``throughput_so_far``,
``work_so_far`` (all ranks: rank 0's count x world size), ``train_elapsed_s``,
``warmup_steps`` and ``work_unit``; a round cut before FINISHED gets the throughput of its
completed steps from them (chipperf/results/compute/cut.py).

Inference FINISHED (suite ``inference``; docs/inference.md) requires instead::

    e2e_time_s           float
    work_unit, work_done "items", items of the offline scenario
    throughput           {"raw", "pure_compute": float, "unit": "items/s"}
    latency_ms           {"p50", "p90", "p99": float, "count": int} (single-stream)
    engine, precision    str
    dtype                str, the precision of the peak FLOP/s MFU divides by
    metric               {"name", "value", "target", "higher_is_better"}
    reference            {"max_abs_diff", "mean_abs_diff", "bound": float, "within_bound": bool}
    converged            bool
    flops_per_unit       float, forward FLOPs per item
    world_size           int
    peak_memory_bytes    int or null

and may carry the training times too (``train_time_s`` = the timed window). An LLM serving
case (work_unit "tokens": generated tokens) adds ``window_work`` (tokens generated in the whole
timed window) and ``serving`` (per scenario: TTFT, TPOT, latency percentiles, tokens/s,
requests/s; the server scenario's rates and the highest meeting the bound).
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

FINISHED_KEYS: Mapping[str, tuple[type, ...]] = {
    "e2e_time_s": (int, float),
    "train_time_s": (int, float),
    "train_no_eval_time_s": (int, float),
    "pure_compute_time_s": (int, float),
    "work_unit": (str,),
    "work_done": (int,),
    "throughput": (dict,),
    "converged": (bool,),
    "metric": (dict,),
    "flops_per_unit": (int, float),
    "dtype": (str,),
    "world_size": (int,),
    "peak_memory_bytes": (int, type(None)),
}

INFERENCE_FINISHED_KEYS: Mapping[str, tuple[type, ...]] = {
    "e2e_time_s": (int, float),
    "work_unit": (str,),
    "work_done": (int,),
    "throughput": (dict,),
    "latency_ms": (dict,),
    "engine": (str,),
    "precision": (str,),
    "dtype": (str,),
    "metric": (dict,),
    "reference": (dict,),
    "converged": (bool,),
    "flops_per_unit": (int, float),
    "world_size": (int,),
    "peak_memory_bytes": (int, type(None)),
}
# Other FINISHED keys of the inference suite the results code reads when present.
INFERENCE_OPTIONAL_KEYS = ("device", "batch_size", "peak_memory_source", "engine_build_time_s",
                           "offline", "window_work", "serving")
# Other FINISHED keys of the training suite the results code reads when present.
TRAINING_OPTIONAL_KEYS = ("run_mode", "data_mode", "parameters", "execution", "peak_rss_bytes")
# Required parts of FINISHED's nested objects, per suite: key -> (part, its types).
_NUMBER = (int, float)
_FINISHED_PARTS: Mapping[str, Mapping[str, Mapping[str, tuple[type, ...]]]] = {
    "training": {
        "throughput": {"raw": _NUMBER, "unit": (str,)},
        "metric": {"name": (str,), "value": _NUMBER, "target": _NUMBER + (type(None),)},
    },
    "inference": {
        "throughput": {"raw": _NUMBER, "pure_compute": _NUMBER, "unit": (str,)},
        "metric": {"name": (str,), "value": _NUMBER, "target": _NUMBER + (type(None),)},
        "latency_ms": {"p50": _NUMBER, "p90": _NUMBER, "p99": _NUMBER, "count": (int,)},
        "reference": {"max_abs_diff": _NUMBER, "mean_abs_diff": _NUMBER, "bound": _NUMBER,
                      "within_bound": (bool,)},
    },
}

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


def finished_problems(value: Mapping[str, Any], suite: str | None = "training") -> list[str]:
    """Every way a (normalized) FINISHED value departs from the schema of ``suite``
    ("training", the default, or "inference"; None means training)."""
    inference = suite == "inference"
    keys = INFERENCE_FINISHED_KEYS if inference else FINISHED_KEYS
    problems = []
    for key, types in keys.items():
        if key not in value:
            problems.append(f"FINISHED lacks {key!r}")
        elif not _typed(value[key], types):
            problems.append(f"FINISHED {key!r} has type {type(value[key]).__name__}")
    for key, parts in _FINISHED_PARTS["inference" if inference else "training"].items():
        item = value.get(key)
        if isinstance(item, dict):
            problems += _part_problems(key, item, parts, strict=inference)
    return problems


def _typed(item: Any, types: tuple[type, ...]) -> bool:
    return isinstance(item, types) and not (isinstance(item, bool) and bool not in types)


def _part_problems(key: str, item: Mapping[str, Any], parts: Mapping[str, tuple[type, ...]],
                   strict: bool) -> list[str]:
    """Missing parts of a nested FINISHED object; with ``strict`` also mistyped ones."""
    problems = []
    for part, types in parts.items():
        if part not in item:
            problems.append(f"FINISHED {key} lacks {part!r}")
        elif strict and not _typed(item[part], types):
            problems.append(f"FINISHED {key} {part!r} has type {type(item[part]).__name__}")
    return problems
