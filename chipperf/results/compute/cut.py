"""The throughput of a training round that ended without FINISHED (its deadline cut it, or it
was stopped), from the STEP_END events rank 0 logged before the end.

The training driver's STEP_END carries ``work_so_far`` (samples or tokens, all ranks,
estimated as rank 0's count times the world size), ``train_elapsed_s`` (since TRAIN_START),
``warmup_steps`` (the performance-mode warm-up, 0 otherwise) and ``work_unit`` when the case
named it. The steady-state figure is the work between the first STEP_END past the warm-up and
the last one, over the time between them; with only one such event, it is that event's work
over its elapsed time (start-up and warm-up included, and said so). The round is marked cut and
not converged. Pure: events in, fields out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chipperf.results.compute.schema import Throughput
from chipperf_runtime.perflog import Event

WORK, ELAPSED = "work_so_far", "train_elapsed_s"


def _number(value: Mapping[str, Any], key: str) -> float | None:
    item = value.get(key)
    return float(item) if isinstance(item, (int, float)) and not isinstance(item, bool) else None


def progress_step(event: Event) -> bool:
    """Whether a STEP_END carries what a cut round's throughput needs."""
    return event.name == "STEP_END" and _number(event.value, WORK) is not None \
        and _number(event.value, ELAPSED) is not None


def past_warmup(event: Event) -> bool:
    step, warmup = _number(event.value, "step"), _number(event.value, "warmup_steps") or 0.0
    return step is not None and step > warmup


@dataclass
class StepTrail:
    """The STEP_ENDs a cut round's figure needs, kept while a log streams past: the first
    one after the warm-up and the last one (two events, whatever the log's length)."""

    first: Event | None = None
    last: Event | None = None

    def keep(self, event: Event) -> None:
        if not progress_step(event) or not past_warmup(event):
            return
        if self.first is None:
            self.first = event
        self.last = event


def cut_fields(trail: StepTrail, ended: str) -> tuple[dict[str, Any], str]:
    """RoundResult fields (throughput, work_done and train_time_s of the measured span,
    converged False) and the sentence saying where they come from; ({}, why not) when the log
    has no usable STEP_END. ``ended``: how the round ended, for the sentence."""
    first, last = trail.first, trail.last
    if first is None or last is None:
        return {}, (f"{ended}; rank 0 logged no STEP_END with {WORK} and {ELAPSED} past its "
                    "warm-up, so no throughput of the completed steps can be given")
    unit = last.value.get("work_unit")
    unit = unit if isinstance(unit, str) else None
    if first is last:
        work, seconds = _number(last.value, WORK) or 0.0, _number(last.value, ELAPSED) or 0.0
        span = (f"steps 1-{last.value.get('step')} (start-up and warm-up included: only one "
                "progress event past the warm-up)")
    else:
        work = (_number(last.value, WORK) or 0.0) - (_number(first.value, WORK) or 0.0)
        seconds = (_number(last.value, ELAPSED) or 0.0) - (_number(first.value, ELAPSED) or 0.0)
        span = f"steps {first.value.get('step')}-{last.value.get('step')}"
    if not (seconds > 0 and work > 0):
        return {}, f"{ended}; its STEP_END events measure no positive work over time"
    fields: dict[str, Any] = {
        "throughput": Throughput(raw=work / seconds, unit=f"{unit}/s" if unit else None),
        "work_done": int(round(work)), "train_time_s": seconds, "converged": False,
        "cut": True}
    if unit:
        fields["work_unit"] = unit
    return fields, (f"{ended}: cut, not converged; throughput of the completed {span} from "
                    f"rank 0's STEP_END events ({int(round(work))} {unit or 'work units'} in "
                    f"{seconds:.1f} s)")
