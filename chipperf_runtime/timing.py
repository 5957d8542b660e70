"""Timing for every suite: one clock, read after a device sync; timed loops; percentiles.

    now(sync)                   the clock, after ``sync`` (the device layer's ``synchronize``)
    timed_call(fn, sync)        one call between two syncs: (its result, seconds)
    warm, run_window, run_each  base/ and operation/: warm-up, then at least ``iters``
                                iterations and at least ``min_time_s`` (``Loop``)
    percentile, latency_ms      the one percentile definition (linear interpolation between
                                closest ranks, numpy's default) and p50/p90/p99 of latencies
    seconds_since_process_start the start of training's e2e window

The training driver's windows (``chipperf_runtime.training.driver.windows``) and inference's
measurements (``chipperf_runtime.inference.measure``) read the clock through ``now`` and
``timed_call``; ``sync`` is called before every clock reading, so queued device work is counted
in the window it belongs to. Pure: standard library only.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Optional, TypeVar

Clock = Callable[[], float]
Sync = Callable[[], None]
T = TypeVar("T")


def now(sync: Optional[Sync] = None, clock: Clock = time.perf_counter) -> float:
    """The clock's reading, after ``sync`` when one is given."""
    if sync is not None:
        sync()
    return clock()


def timed_call(fn: Callable[[], T], sync: Sync, clock: Clock = time.perf_counter
               ) -> tuple[T, float]:
    """``fn()`` with a sync before and after it: (its result, the seconds between)."""
    start = now(sync, clock)
    result = fn()
    return result, now(sync, clock) - start


def seconds_since_process_start() -> float:
    """How long this process has run (Linux /proc, 10 ms resolution); 0.0 when unknown."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime in ticks
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


@dataclass(frozen=True)
class Loop:
    """How a measurement is repeated (the method a result states)."""

    warmup: int = 3
    iters: int = 10
    min_time_s: float = 0.0

    def describe(self) -> dict[str, float]:
        return {"warmup": self.warmup, "min_iters": self.iters, "min_time_s": self.min_time_s}


@dataclass(frozen=True)
class Timed:
    iterations: int
    seconds: float                  # the whole timed window
    per_iter_s: tuple[float, ...]   # each iteration (only when timed one by one)

    @property
    def mean_s(self) -> float:
        return self.seconds / self.iterations


def warm(fn: Callable[[], object], sync: Sync, loop: Loop) -> None:
    for _ in range(loop.warmup):
        fn()
    sync()


def run_window(fn: Callable[[], object], sync: Sync, loop: Loop,
               clock: Callable[[], float] = time.perf_counter) -> Timed:
    """Batches of ``iters`` back to back (one sync per batch) until ``min_time_s`` is reached."""
    sync()
    start = clock()
    done = 0
    while True:
        for _ in range(loop.iters):
            fn()
        done += loop.iters
        sync()
        elapsed = clock() - start
        if elapsed >= loop.min_time_s:
            return Timed(done, elapsed, ())


def run_each(fn: Callable[[], object], sync: Sync, loop: Loop,
             clock: Callable[[], float] = time.perf_counter) -> Timed:
    """Every iteration timed on its own (a sync after each), for latency percentiles."""
    times: list[float] = []
    total = 0.0
    while len(times) < loop.iters or total < loop.min_time_s:
        times.append(timed_call(fn, sync, clock)[1])
        total += times[-1]
    return Timed(len(times), total, tuple(times))


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks (numpy's
    default method): the one definition every suite's p50/p90/p99 uses (inference, operation,
    base; docs/architecture.md)."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    at = (len(ordered) - 1) * q / 100
    low, high = math.floor(at), math.ceil(at)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def latency_ms(values: Sequence[float]) -> dict[str, float | int]:
    ms = [v * 1000 for v in values]
    return {"p50": percentile(ms, 50), "p90": percentile(ms, 90), "p99": percentile(ms, 99),
            "min": min(ms), "max": max(ms), "mean": sum(ms) / len(ms), "count": len(ms)}
