"""A ``Generator`` as MLPerf LoadGen's system under test, and one LoadGen test run on it.

LoadGen (``mlcommons-loadgen``, imported as ``mlperf_loadgen``) owns the scenario: when each
query is issued (Offline: all at once; SingleStream: the next when the previous completed;
Server: Poisson arrivals at the target rate), how many and for how long (minimum duration and
query count), and the verdict (VALID or INVALID: the minimums, the latency constraints, early
stopping). chipperf owns the system under test: LoadGen's issue thread puts each query on the
queue of the shared ``Worker`` (``inference/loadgen.py``, which also holds the settings and the
test run); the worker thread takes what has arrived, up to ``batch_size`` (static batching: a
batch runs until its longest request is done), runs it through the generator, tells LoadGen
when the first token reached the host (``FirstTokenComplete``, from the generator's first-token
hook as it happens) and when each request completed with its token count
(``QuerySamplesComplete``). LoadGen writes its logs (``mlperf_log_summary.txt``,
``mlperf_log_detail.txt``) into the directory given; ``run`` returns their figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from chipperf_runtime.inference import loadgen as harness
from chipperf_runtime.inference.llm.engines import Generator
from chipperf_runtime.inference.llm.prompts import Request
from chipperf_runtime.inference.llm.serving import ScenarioRun, Served
from chipperf_runtime.inference.loadgen import LOG_FILES, Limits, loadgen

__all__ = ["LOG_FILES", "Limits", "Measured", "Worker", "loadgen", "run"]


class Worker(harness.Worker):
    """The shared SUT queue (``inference/loadgen.py``); a batch runs through the generator."""

    def __init__(self, lg: Any, gen: Generator, requests: Sequence[Request], batch_size: int):
        super().__init__(lg, batch_size)
        self.gen, self.requests = gen, requests
        self.served: list[Served] = []

    def _run(self, batch: list[tuple[Any, float]]) -> None:
        lg, ids = self.lg, [sample.id for sample, _ in batch]
        if self.error is not None:   # failed before: complete the rest unrun, LoadGen ends
            self.complete_unrun(ids)
            return
        hook = getattr(self.gen, "on_first_token", False)
        if hook is not False:
            self.gen.on_first_token = lambda: lg.FirstTokenComplete(  # type: ignore[attr-defined]
                [lg.QuerySampleResponse(i, 0, 0) for i in ids])
        try:
            done = self.gen.generate([self.requests[s.index] for s, _ in batch])
        except BaseException as exc:  # noqa: BLE001 - reported after LoadGen returns
            self.error = exc
            self.complete_unrun(ids)
            return
        finally:   # LoadGen's calls outside its test crash the process: no hook after the batch
            if hook is not False:
                self.gen.on_first_token = None  # type: ignore[attr-defined]
        if hook is False:   # an engine without a first-token hook: TTFT is the latency
            lg.FirstTokenComplete([lg.QuerySampleResponse(i, 0, 0) for i in ids])
        self.served += [Served(c, arrival) for c, (_, arrival) in zip(done, batch)]
        lg.QuerySamplesComplete([lg.QuerySampleResponse(i, 0, 0, len(c.tokens))
                                 for i, c in zip(ids, done)])


@dataclass(frozen=True)
class Measured:
    run: ScenarioRun                  # chipperf's own record of each request
    summary: dict                     # LoadGen's figures (loadgen_log.parse)
    problems: tuple[str, ...]
    logs: Path
    first_token_hook: bool            # False: the engine reported first tokens at completion


def run(scenario: str, gen: Generator, requests: Sequence[Request], batch_size: int,
        limits: Limits, logs: Path, target_qps: Optional[float] = None) -> Measured:
    """One LoadGen performance test of ``scenario``; its logs land in ``logs``."""
    before = (gen.accounting.engine_s, gen.accounting.harness_s)
    worker = Worker(loadgen(), gen, requests, batch_size)
    summary, problems = harness.run_test(scenario, worker, (len(requests), len(requests)),
                                         limits, logs, target_qps)
    record = ScenarioRun(tuple(worker.served), gen.accounting.engine_s - before[0],
                         gen.accounting.harness_s - before[1])
    return Measured(record, summary, tuple(problems), logs,
                    getattr(gen, "on_first_token", False) is not False)
