"""Figures over a case's rounds: mean, median, min, max, CV, olympic mean.

A round is counted when it succeeded, rank 0 logged FINISHED, and (training) it
converged; an inference round that misses its accuracy target or deviation bound is
a result and is counted (its ``converged`` and ``reference.within_bound`` say so).
Every other round is listed in ``excluded`` with why; none is averaged in silently.
The olympic mean (MLPerf-style) drops one lowest and one highest value and needs at
least ``OLYMPIC_MIN`` values.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from chipperf.results.compute.schema import (
    CaseResult,
    Exclusion,
    RoundResult,
    Stat,
    aggregated_for,
    round_reason,
    round_value,
)
from chipperf.suites import suite_of

OLYMPIC_MIN = 5


def stat(values: Sequence[float]) -> Stat:
    """Stat of the values (each absent figure with its reason)."""
    n = len(values)
    if n == 0:
        return Stat(n=0, reasons={"mean": "no counted round has this figure"})
    reasons = {}
    mean = statistics.fmean(values)
    stdev = statistics.stdev(values) if n >= 2 else None
    cv = stdev / abs(mean) if stdev is not None and mean else None
    if n < 2:
        reasons["cv"] = reasons["stdev"] = "needs >= 2 rounds"
    elif not mean:
        reasons["cv"] = "mean is 0"
    olympic = None
    if n >= OLYMPIC_MIN:
        olympic = statistics.fmean(sorted(values)[1:-1])
    else:
        reasons["olympic_mean"] = f"needs >= {OLYMPIC_MIN} rounds (has {n})"
    return Stat(n=n, mean=mean, median=statistics.median(values), min=min(values),
                max=max(values), stdev=stdev, cv=cv, olympic_mean=olympic, reasons=reasons)


def exclusion(result: RoundResult, suite: str | None) -> str:
    """Why a round is left out of the aggregate ('' when it is counted)."""
    if result.status != "succeeded":
        detail = f": {result.reason}" if result.reason else ""
        return f"status {result.status or 'unknown'}{detail}"
    if "finished" in result.reasons:
        return result.reasons["finished"]
    if suite_of(suite).infers or "figures_from" in result.reasons:   # FlagPerf LLM / Finish Info
        return ""
    if result.converged is False and (result.run_mode or "").startswith("performance"):
        return ""                  # a performance run times steps; it does not train to target
    if result.converged is False:
        return "did not converge" + _metric_text(result)
    if result.converged is None:
        return "convergence not reported (FINISHED lacks 'converged')"
    return ""


def _metric_text(result: RoundResult) -> str:
    metric = result.metric
    if metric is None or metric.value is None:
        return ""
    target = f" vs target {metric.target:g}" if metric.target is not None else ""
    return f": {metric.name} {metric.value:g}{target}"


def aggregate_case(case: CaseResult, suite: str | None) -> CaseResult:
    counted, excluded = [], []
    for result in case.rounds:
        why = exclusion(result, suite)
        if why:
            excluded.append(Exclusion(result.number, why))
        else:
            counted.append(result)
    figures = {}
    reasons = dict(case.reasons)
    for name in aggregated_for(suite):
        values = [v for v in (round_value(r, name) for r in counted) if v is not None]
        figures[name] = stat(values)
        if not values:
            figures[name] = replace(figures[name], reasons={"mean": _absent(counted, excluded,
                                                                              name)})
    return replace(case, counted=tuple(r.number for r in counted), excluded=tuple(excluded),
                   aggregate=figures, reasons=reasons, **_descriptors(case.rounds))


def _absent(counted: list[RoundResult], excluded: list[Exclusion], name: str) -> str:
    if not counted:
        return "no round counted" + (f" (round {excluded[0].round}: {excluded[0].why})"
                                     if excluded else "")
    why = round_reason(counted[0], name) or "not measured"
    return f"round {counted[0].number}: {why}"


def _descriptors(rounds: Sequence[RoundResult]) -> dict[str, Any]:
    """Units and names the rounds agree on (the first round that says)."""
    out: dict[str, Any] = {}
    for r in rounds:
        if r.throughput and r.throughput.unit:
            out.setdefault("throughput_unit", r.throughput.unit)
        if r.work_unit:
            out.setdefault("work_unit", r.work_unit)
        if r.metric and r.metric.name:
            out.setdefault("metric_name", r.metric.name)
        if r.metric and r.metric.target is not None:
            out.setdefault("metric_target", r.metric.target)
        if r.mfu_dtype:
            out.setdefault("mfu_dtype", r.mfu_dtype)
        if r.engine:
            out.setdefault("engine", r.engine)
        if r.run_mode:
            out.setdefault("run_mode", r.run_mode)
        if r.data_mode:
            out.setdefault("data_mode", r.data_mode)
    # every precision the rounds ran (a sweep over precision: 'fp32, bf16'), so a case is
    # labelled, and compared, as what it ran, not as its first round
    precisions = ", ".join(dict.fromkeys(r.precision for r in rounds if r.precision))
    if precisions:
        out["precision"] = precisions
    return out
