"""The three serving scenarios (MLPerf LoadGen's ideas), on any ``Generator``.

- offline: every request arrives at once; batches of ``batch_size`` in arrival order.
- single stream: one request at a time, the next issued when the previous one completed.
- server: arrivals as a Poisson process at ``rate`` requests/s (exponential gaps from a seeded
  generator); whenever the engine is free it takes up to ``batch_size`` of the requests that
  have arrived (static batching: a batch runs until its longest request is done). A rate the
  engine cannot sustain shows as a growing queue: when the request at the head of the queue
  has waited longer than ``saturation_wait_s``, the run stops there and is reported saturated
  (it never waits for a backlog to drain). ``search`` runs rates in ascending order and stops
  at the first that misses the TTFT/TPOT bound or saturates.

The clock and sleep are parameters so tests can drive them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from chipperf_runtime.inference.llm.engines import Generator
from chipperf_runtime.inference.llm.prompts import Request
from chipperf_runtime.inference.llm.serving import ScenarioRun, Served, meets_bound, summarize

Clock = Callable[[], float]


def offline(gen: Generator, requests: Sequence[Request], batch_size: int,
            clock: Clock = time.perf_counter) -> ScenarioRun:
    before = (gen.accounting.engine_s, gen.accounting.harness_s)
    arrival = clock()
    served: list[Served] = []
    for b in range(0, len(requests), batch_size):
        served += [Served(c, arrival) for c in gen.generate(requests[b:b + batch_size])]
    return _run(gen, before, served)


def single_stream(gen: Generator, requests: Sequence[Request],
                  clock: Clock = time.perf_counter) -> ScenarioRun:
    before = (gen.accounting.engine_s, gen.accounting.harness_s)
    served: list[Served] = []
    for r in requests:
        arrival = clock()
        served.append(Served(gen.generate([r])[0], arrival))
    return _run(gen, before, served)


def arrival_offsets(count: int, rate: float, seed: int) -> np.ndarray:
    """Seconds after the start at which each request arrives (Poisson process at ``rate``)."""
    gaps = np.random.default_rng([seed, 7]).exponential(1.0 / rate, size=count)
    return np.cumsum(gaps) - gaps[0]


def server(gen: Generator, requests: Sequence[Request], batch_size: int, rate: float,
           seed: int, saturation_wait_s: float, clock: Clock = time.perf_counter,
           sleep: Callable[[float], None] = time.sleep) -> ScenarioRun:
    before = (gen.accounting.engine_s, gen.accounting.harness_s)
    offsets = arrival_offsets(len(requests), rate, seed)
    start = clock()
    arrived, served, queue = 0, list[Served](), list[int]()
    while arrived < len(requests) or queue:
        now = clock() - start
        while arrived < len(requests) and offsets[arrived] <= now:
            queue.append(arrived)
            arrived += 1
        if not queue:  # idle: wait for the next arrival, then it is there
            sleep(max(0.0, float(offsets[arrived]) - now))
            queue.append(arrived)
            arrived += 1
            continue
        waited = now - offsets[queue[0]]
        if waited > saturation_wait_s:
            reason = (f"request {queue[0]} waited {waited:.1f} s for the engine (more than "
                      f"saturation_wait_s {saturation_wait_s:g}), {len(queue)} queued, "
                      f"{len(requests) - arrived} still to arrive")
            return _run(gen, before, served, reason)
        batch, queue = queue[:batch_size], queue[batch_size:]
        served += [Served(c, start + offsets[i])
                   for i, c in zip(batch, gen.generate([requests[i] for i in batch]))]
    return _run(gen, before, served)


def _run(gen: Generator, before: tuple[float, float], served: list[Served],
         saturated: str = "") -> ScenarioRun:
    return ScenarioRun(tuple(served), gen.accounting.engine_s - before[0],
                       gen.accounting.harness_s - before[1], bool(saturated), saturated)


@dataclass(frozen=True)
class Bound:
    ttft_ms: float
    tpot_ms: float
    percentile: int

    def describe(self) -> dict:
        return {"ttft_ms": self.ttft_ms, "tpot_ms": self.tpot_ms, "percentile": self.percentile}


def search(gen: Generator, requests: Sequence[Request], batch_size: int,
           rates: Sequence[float], seed: int, saturation_wait_s: float, bound: Bound,
           clock: Clock = time.perf_counter,
           sleep: Callable[[float], None] = time.sleep) -> dict:
    """Each rate in ascending order until one misses the bound; the highest that met it."""
    results, best = [], None
    for rate in sorted(rates):
        figures = summarize(server(gen, requests, batch_size, rate, seed, saturation_wait_s,
                                   clock, sleep))
        ok, why = meets_bound(figures, bound.ttft_ms, bound.tpot_ms, bound.percentile)
        results.append({"target_rate": rate, "meets_bound": ok, "why_not": why or None,
                        **figures})
        if not ok:
            break
        best = rate
    return {"bound": bound.describe(), "rates": results, "max_rate_meeting_bound": best,
            "note": "rates above the first that missed the bound are not run"
            if results and not results[-1]["meets_bound"] else None}
