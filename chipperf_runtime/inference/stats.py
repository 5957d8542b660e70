"""Pure helpers: latency percentiles (the runtime's one definition, ``chipperf_runtime.timing.percentile``:
linear interpolation between closest ranks, numpy's default) and the running deviation from
the reference."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from chipperf_runtime.timing import percentile

PERCENTILES = (50, 90, 99)


def latency_summary(latencies_ms: Sequence[float]) -> dict:
    summary = {f"p{p}": percentile(latencies_ms, p) for p in PERCENTILES}
    summary.update(mean=sum(latencies_ms) / len(latencies_ms), min=min(latencies_ms),
                   max=max(latencies_ms), count=len(latencies_ms))
    return summary


@dataclass(frozen=True)
class Deviation:
    """Running max/mean |engine - reference| and max |reference| over scored batches."""

    max_abs_diff: float = 0.0
    sum_abs_diff: float = 0.0
    count: int = 0
    max_abs_ref: float = 0.0
    nonfinite: int = 0

    def add(self, max_diff: float, sum_diff: float, count: int, max_ref: float,
            nonfinite: int = 0) -> "Deviation":
        return Deviation(max(self.max_abs_diff, max_diff), self.sum_abs_diff + sum_diff,
                         self.count + count, max(self.max_abs_ref, max_ref),
                         self.nonfinite + nonfinite)

    def report(self, tolerance: float) -> dict:
        """``bound = tolerance * max|reference|``; non-finite outputs are never within it."""
        bound = tolerance * self.max_abs_ref
        return {
            "max_abs_diff": self.max_abs_diff,
            "mean_abs_diff": self.sum_abs_diff / self.count if self.count else None,
            "bound": bound,
            "tolerance": tolerance,
            "max_abs_reference": self.max_abs_ref,
            "nonfinite_outputs": self.nonfinite,
            "within_bound": bool(self.count and not self.nonfinite and self.max_abs_diff <= bound),
        }
