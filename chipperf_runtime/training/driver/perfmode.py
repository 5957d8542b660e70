"""Run modes of a training case: convergence (train toward the target) or performance
(a fixed warm-up, then a fixed number of timed steps; FlagPerf's LLM cases time 300).

Three config knobs, read with defaults so a case whose ``_base.py`` lacks them runs in
convergence mode as before::

    run_mode = "convergence"     # or "performance"
    perf_warmup_steps = 0        # performance: optimizer steps before the timed window (not
                                 # ``warmup_steps``, which some cases use for the lr warm-up)
    timed_steps = 0              # performance: optimizer steps inside the timed window

``StepWindow`` marks the timed window from the steps a case reports (``Driver.step_done``);
``performance_value`` rewrites a FINISHED value so its times, work and throughput are those of
the timed window, and says so in ``run_mode``. Pure: no framework, no clock of its own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chipperf_runtime.training.driver.errors import CaseError, ConfigError

CONVERGENCE, PERFORMANCE = "convergence", "performance"
RUN_MODES = (CONVERGENCE, PERFORMANCE)


@dataclass(frozen=True)
class RunMode:
    mode: str = CONVERGENCE
    warmup_steps: int = 0
    timed_steps: int = 0

    @property
    def performance(self) -> bool:
        return self.mode == PERFORMANCE

    @property
    def total_steps(self) -> int | None:
        """Optimizer steps a performance run makes in all (None: convergence decides)."""
        return self.warmup_steps + self.timed_steps if self.performance else None

    def as_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "warmup_steps": self.warmup_steps,
                "timed_steps": self.timed_steps}


def run_mode_from(config: Mapping[str, Any]) -> RunMode:
    """The config's run mode; ``ConfigError`` naming the knob and the fix when it is wrong."""
    mode = config.get("run_mode", CONVERGENCE)
    if mode not in RUN_MODES:
        raise ConfigError(f"run_mode = {mode!r}: unknown run mode: use one of "
                          f"{', '.join(map(repr, RUN_MODES))}")
    warmup, timed = config.get("perf_warmup_steps", 0), config.get("timed_steps", 0)
    for name, value in (("perf_warmup_steps", warmup), ("timed_steps", timed)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{name} = {value!r}: must be a whole number >= 0")
    run = RunMode(str(mode), int(warmup), int(timed))
    if run.performance:
        _check_performance(run, config.get("max_steps"))
    return run


def _check_performance(run: RunMode, max_steps: Any) -> None:
    if run.timed_steps <= 0:
        raise ConfigError(f"run_mode = 'performance' with timed_steps = {run.timed_steps}: "
                          "nothing would be timed: set timed_steps to the number of steps to "
                          "time (FlagPerf's LLM cases time 300)")
    if isinstance(max_steps, int) and not isinstance(max_steps, bool) \
            and max_steps < run.warmup_steps + run.timed_steps:
        raise ConfigError(f"run_mode = 'performance': max_steps = {max_steps} stops the run "
                          f"before perf_warmup_steps + timed_steps = {run.warmup_steps} + "
                          f"{run.timed_steps} steps: raise max_steps or lower perf_warmup_steps / "
                          "timed_steps (or set max_steps = None)")


@dataclass(frozen=True)
class Mark:
    """A point of the run: optimizer steps, this rank's work, the clock, compute seconds."""

    step: int
    work: float
    clock: float
    compute_s: float


class StepWindow:
    """The timed window of a performance run: opened when step ``perf_warmup_steps`` ends (step 0:
    at the first report), closed when step ``perf_warmup_steps + timed_steps`` ends."""

    def __init__(self, run: RunMode):
        self.run = run
        self.start: Mark | None = None
        self.end: Mark | None = None

    def wants(self, step: int) -> bool:
        """Whether ``step`` opens or closes the window (the caller then reads a synced clock)."""
        if not self.run.performance:
            return False
        return (self.start is None and step >= self.run.warmup_steps) or \
            (self.end is None and self.run.total_steps is not None
             and step >= self.run.total_steps)

    def mark(self, at: Mark) -> None:
        if self.start is None and at.step >= self.run.warmup_steps:
            self.start = at
        elif self.start is not None and self.end is None and self.run.total_steps is not None \
                and at.step >= self.run.total_steps:
            self.end = at

    @property
    def done(self) -> bool:
        return self.end is not None


def performance_value(value: Mapping[str, Any], window: StepWindow, world_size: int
                      ) -> dict[str, Any]:
    """FINISHED's value with times, work and throughput from the timed window; the whole run's
    figures move to ``run_mode.whole_run``. ``CaseError`` when the window never closed or
    measured nothing."""
    start, end = window.start, window.end
    if start is None or end is None:
        raise CaseError(f"performance mode: training stopped before its "
                        f"{window.run.timed_steps} timed steps (after "
                        f"{window.run.warmup_steps} warm-up steps) were done: the case's loop "
                        "must call driver.step_done(step, work) after every optimizer step "
                        "and stop only when it returns True")
    seconds, compute = end.clock - start.clock, end.compute_s - start.compute_s
    work = int(round((end.work - start.work) * world_size))
    if not seconds > 0 or not compute > 0:
        raise CaseError(f"performance mode: the timed window measured {seconds!r} s "
                        f"({compute!r} s of compute): the case must mark its compute regions")
    whole = {k: value[k] for k in ("train_time_s", "train_no_eval_time_s",
                                   "pure_compute_time_s", "work_done", "throughput")}
    return {**value, **_timed_figures(seconds, compute, work, value["work_unit"]),
            "converged": False,
            "metric": {**value["metric"], "value": _finite(value["metric"].get("value"))},
            "run_mode": {**window.run.as_dict(), "timed_window_s": seconds, "timed_work": work,
                         "timed_first_step": start.step + 1, "timed_last_step": end.step,
                         "whole_run": whole}}


def _timed_figures(seconds: float, compute: float, work: int, unit: str) -> dict[str, Any]:
    return {"train_time_s": seconds, "train_no_eval_time_s": seconds,
            "pure_compute_time_s": compute, "work_done": work,
            "throughput": {"raw": work / seconds, "no_eval": work / seconds,
                           "pure_compute": work / compute, "unit": f"{unit}/s"}}


def _finite(number: Any) -> float | None:
    """A metric value a performance run may report (e.g. the last loss); NaN (not evaluated)
    becomes None."""
    if isinstance(number, (int, float)) and not isinstance(number, bool) and math.isfinite(number):
        return float(number)
    return None
