"""The accuracy of a served sweep, shown beside its speed: lm-eval's task scores (FINISHED
``serving.sweep.accuracy_tasks``: task, metric, value, stderr, n) as a table, and one sentence
per round for the accuracy guard (served greedy tokens against the reference engine's) and for
what the scores mean (chipperf's seeded random weights: nothing), each saying when it was asked
before the sweep (serve_accuracy_when). Pure: rows for markdown and
HTML alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chipperf.results.compute.schema import CaseResult
from chipperf.results.render.servecurve import sweep_of
from chipperf.results.render.serving import DASH, _num

HEADER = ["round", "task", "metric", "value", "stderr", "n", "weights"]


def has_accuracy(case: CaseResult) -> bool:
    return any(_tasks(r.serving) or _guard(r.serving) for r in case.rounds)


def accuracy_rows(case: CaseResult) -> tuple[list[str], list[list[str]]]:
    rows = []
    for r in case.rounds:
        tasks = _tasks(r.serving) or {}
        weights = str(tasks.get("weights", DASH)) + ("" if tasks.get("meaningful") else
                                                     " (not meaningful)")
        for s in tasks.get("scores", []):
            rows.append([str(r.number), str(s.get("task")), str(s.get("metric")),
                         _num(s.get("value")), _num(s.get("stderr")), _num(s.get("n")), weights])
    return list(HEADER), rows


def accuracy_notes(case: CaseResult) -> list[str]:
    """Per round: the guard's agreement, the harness and what its scores mean."""
    lines = []
    for r in case.rounds:
        guard, tasks = _guard(r.serving), _tasks(r.serving)
        when = ("asked before the sweep" if (sweep_of(r.serving) or {}).get("accuracy_when")
                == "before_sweep" else None)
        if guard:
            lines.append(f"Round {r.number}: accuracy guard: " + _guard_text(guard)
                         + (f" ({when})" if when else ""))
        if tasks:
            said = [when, tasks.get("not_run"), tasks.get("note")]
            lines.append(f"Round {r.number}: {tasks.get('harness')} on "
                         f"{', '.join(map(str, tasks.get('tasks', [])))}, at most "
                         f"{_num(tasks.get('limit'))} examples each"
                         + "".join(f"; {s}" for s in said if s))
    return lines


def _guard_text(guard: Mapping[str, Any]) -> str:
    if guard.get("agree") is None:
        return str(guard.get("note", "not run"))
    return (f"{_share(guard.get('token_agreement'))} of {_num(guard.get('tokens'))} greedy "
            f"tokens over {_num(guard.get('prompts'))} prompts equal the reference's "
            f"({guard.get('reference')}), target {_share(guard.get('target'))}: "
            + ("agree" if guard.get("agree") else "DISAGREE"))


def _share(value: Any) -> str:
    return f"{value * 100:.1f} %" if isinstance(value, (int, float)) else DASH


def _tasks(serving: Any) -> Mapping[str, Any] | None:
    tasks = (sweep_of(serving) or {}).get("accuracy_tasks")
    return tasks if isinstance(tasks, Mapping) else None


def _guard(serving: Any) -> Mapping[str, Any] | None:
    guard = (sweep_of(serving) or {}).get("accuracy_guard")
    return guard if isinstance(guard, Mapping) else None
