"""Convergence over seeds, as MLPerf Training scores it: per round, the seed and the steps and
samples to the target; over the rounds, olympic statistics.

A round's figures come from global rank 0's events: SUBMIT_INFO's config (``seed``,
``global_batch_size``) and the first EVALUATE that reached the target (its ``step``). MLPerf's
reference convergence points (mlperf_logging.rcp_checker) sort the runs' epochs or samples to
converge, drop the fastest and the slowest (olympic scoring; a run that did not converge counts
as infinitely slow, so one such run is dropped rather than failing the set) and take the mean
of the rest; the spread is the population standard deviation of every run. ``converge_stats``
does the same over a case's rounds; docs/results.md "Convergence over seeds".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chipperf_runtime.perflog import Event

SEED_KEYS = ("seed", "random_seed")
BATCH_KEYS = ("global_batch_size", "train_batch_size", "global_batch")


@dataclass(frozen=True)
class RoundConvergence:
    round: int
    seed: int | None
    converged: bool
    steps: int | None = None              # optimizer steps at the first evaluation on target
    samples: int | None = None            # steps x the global batch
    why: str = ""                         # why steps is None


@dataclass(frozen=True)
class ConvergenceStats:
    """Steps to target over a case's rounds (``figure`` "steps"), or samples ("samples")."""

    figure: str
    runs: int
    converged: int
    seeds: tuple[int | None, ...]
    distinct_seeds: bool
    values: tuple[float, ...]             # per round, inf where the round did not converge
    olympic_mean: float | None            # without the fastest and the slowest, runs >= 3
    mean: float | None                    # of the converged rounds
    stdev: float | None                   # population stdev of the converged rounds
    min: float | None
    max: float | None
    outliers: tuple[int, ...]             # the rounds olympic scoring dropped
    valid: bool                           # MLPerf's rule: at most one round did not converge
    notes: tuple[str, ...] = ()


def round_convergence(number: int, events: Sequence[Event]) -> RoundConvergence:
    """One round from its rank-0 events."""
    config = next((_dict(e.value.get("config")) for e in events if e.name == "SUBMIT_INFO"), {})
    seed = _first_int(config, SEED_KEYS)
    batch = _first_int(config, BATCH_KEYS)
    reached = next((e.value for e in events if e.name == "EVALUATE"
                    and e.value.get("reached") is True), None)
    if reached is None:
        return RoundConvergence(number, seed, False, why="no EVALUATE reached the target")
    step = _int(reached.get("step"))
    if step is None:
        return RoundConvergence(number, seed, True, why="the EVALUATE on target has no step")
    return RoundConvergence(number, seed, True, step, step * batch if batch else None)


def converge_stats(rounds: Sequence[RoundConvergence], figure: str = "steps") -> ConvergenceStats:
    """Olympic statistics of ``figure`` ("steps" or "samples") over ``rounds``."""
    values = tuple(_value(r, figure) for r in rounds)
    finite = [v for v in values if math.isfinite(v)]
    order = sorted(range(len(rounds)), key=lambda i: values[i])
    dropped = (order[0], order[-1]) if len(rounds) >= 3 else ()
    kept = [values[i] for i in order[1:-1]] if dropped else []
    seeds = tuple(r.seed for r in rounds)
    return ConvergenceStats(
        figure=figure, runs=len(rounds), converged=sum(r.converged for r in rounds),
        seeds=seeds, distinct_seeds=len(set(seeds)) == len(seeds) and None not in seeds,
        values=values,
        olympic_mean=_mean(kept) if kept and all(map(math.isfinite, kept)) else None,
        mean=_mean(finite) if finite else None,
        stdev=math.sqrt(_mean([(v - _mean(finite)) ** 2 for v in finite])) if finite else None,
        min=min(finite) if finite else None, max=max(finite) if finite else None,
        outliers=tuple(rounds[i].round for i in dropped),
        valid=len(finite) >= len(rounds) - 1 and len(rounds) >= 3,
        notes=tuple(_notes(rounds, seeds, figure)))


def _notes(rounds: Sequence[RoundConvergence], seeds: Sequence[int | None],
           figure: str) -> Iterable[str]:
    if len(rounds) < 3:
        yield f"{len(rounds)} round(s): olympic scoring needs at least 3"
    if len(set(seeds)) < len(seeds):
        yield ("rounds share a seed: the spread is run-to-run variation at one seed, not over "
               "seeds")
    for r in rounds:
        if r.why:
            yield f"round {r.round}: {r.why}"
        elif r.converged and _value(r, figure) == math.inf:
            yield f"round {r.round}: no {figure} figure (the config names no global batch)"


def _value(r: RoundConvergence, figure: str) -> float:
    found = r.steps if figure == "steps" else r.samples
    return float(found) if r.converged and found is not None else math.inf


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _first_int(values: Mapping[str, Any], keys: Sequence[str]) -> int | None:
    return next((_int(values[k]) for k in keys if _int(values.get(k)) is not None), None)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
