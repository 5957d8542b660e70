"""The FINISHED event value, exactly the schema in ``chipperf_runtime/perflog_schema.py``'s docstring.

``build_finished`` is pure: window times + what the case counted -> the dict, checked with
``chipperf_runtime.perflog.finished_problems`` before it is returned. Throughput is work_done over
the train, no-eval and pure-compute windows; a window that was never measured (zero length)
is an error, never a made-up figure.
"""

from __future__ import annotations

import math
import resource
import sys
from dataclasses import dataclass
from typing import Any, Callable

from chipperf_runtime.perflog import finished_problems
from chipperf_runtime.training.driver.errors import CaseError
from chipperf_runtime.training.driver.windows import WindowTimes

WORK_UNITS = ("samples", "tokens")


@dataclass(frozen=True)
class Metric:
    """The quality metric a case trains to: ``reached()`` is the convergence test."""

    name: str
    value: float | None
    target: float | None
    higher_is_better: bool = True

    def reached(self) -> bool:
        if self.value is None or self.target is None or math.isnan(self.value):
            return False
        if self.higher_is_better:
            return self.value >= self.target
        return self.value <= self.target

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "target": self.target,
                "higher_is_better": self.higher_is_better}


@dataclass(frozen=True)
class Attention:
    """How much of a case's ``flops_per_unit`` is attention's score and value products
    (counted whole, forward + backward), and whether the model's attention is causal: FINISHED's
    optional ``attention_flops_per_unit`` and ``causal_attention``."""

    flops_per_unit: float
    causal: bool

    def as_dict(self) -> dict[str, Any]:
        return {"attention_flops_per_unit": float(self.flops_per_unit),
                "causal_attention": bool(self.causal)}


def total_over_ranks(local: int, reduce_sum: Callable[[int], int] | None) -> int:
    """A per-rank count summed over ranks with the case's all-reduce (None: one rank)."""
    return int(local if reduce_sum is None else reduce_sum(local))


def _per_second(work: int, seconds: float, window: str) -> float:
    if not seconds > 0:
        raise CaseError(f"the {window} window measured {seconds!r} s: the case must mark it "
                        "(see docs/adding-a-case.md) before throughput can be computed")
    return work / seconds


def peak_rss_bytes() -> int:
    """This rank's peak resident set so far (host memory; a sweep's memory figure on a cpu)."""
    scale = 1 if sys.platform == "darwin" else 1024     # ru_maxrss: bytes on macOS, else KiB
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * scale


def build_finished(times: WindowTimes, *, work_done: int, work_unit: str, metric: Metric,
                   flops_per_unit: float, dtype: str, world_size: int,
                   peak_memory_bytes: int | None,
                   attention: Attention | None = None) -> dict[str, Any]:
    if work_unit not in WORK_UNITS:
        raise CaseError(f"work_unit {work_unit!r} must be one of {', '.join(WORK_UNITS)}")
    value = {
        "e2e_time_s": float(times.e2e_s),
        "train_time_s": float(times.train_s),
        "train_no_eval_time_s": float(times.no_eval_s),
        "pure_compute_time_s": float(times.compute_s),
        "work_unit": work_unit,
        "work_done": int(work_done),
        "throughput": {
            "raw": _per_second(work_done, times.train_s, "train"),
            "no_eval": _per_second(work_done, times.no_eval_s, "no-eval"),
            "pure_compute": _per_second(work_done, times.compute_s, "pure-compute"),
            "unit": f"{work_unit}/s",
        },
        "converged": metric.reached(),
        "metric": metric.as_dict(),
        "flops_per_unit": float(flops_per_unit),
        "dtype": str(dtype),
        "world_size": int(world_size),
        "peak_memory_bytes": None if peak_memory_bytes is None else int(peak_memory_bytes),
        **(attention.as_dict() if attention is not None else {}),
    }
    problems = finished_problems(value)
    if problems:
        raise CaseError("FINISHED would not match the schema: " + "; ".join(problems))
    return value
