"""A ``Generator`` as MLPerf LoadGen's system under test, and one LoadGen test run on it.

LoadGen (``mlcommons-loadgen``, imported as ``mlperf_loadgen``) owns the scenario: when each
query is issued (Offline: all at once; SingleStream: the next when the previous completed;
Server: Poisson arrivals at the target rate), how many and for how long (minimum duration and
query count), and the verdict (VALID or INVALID: the minimums, the latency constraints, early
stopping). chipperf owns the system under test: LoadGen's issue thread puts each query on a
queue; one worker thread takes what has arrived, up to ``batch_size`` (static batching: a
batch runs until its longest request is done), runs it through the generator, tells LoadGen
when the first token reached the host (``FirstTokenComplete``, from the generator's first-token
hook as it happens) and when each request completed with its token count
(``QuerySamplesComplete``). LoadGen writes its logs (``mlperf_log_summary.txt``,
``mlperf_log_detail.txt``) into the directory given; ``run`` returns their figures.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm import loadgen_log
from chipperf_runtime.inference.llm.engines import Generator
from chipperf_runtime.inference.llm.loadgen_rules import SCENARIOS
from chipperf_runtime.inference.llm.prompts import Request
from chipperf_runtime.inference.llm.serving import ScenarioRun, Served

LOG_FILES = ("mlperf_log_summary.txt", "mlperf_log_detail.txt")


@dataclass(frozen=True)
class Limits:
    """What LoadGen is told besides the scenario (times in ms; MLPerf's rules in the docs)."""

    min_duration_ms: int
    max_duration_ms: int            # 0: none
    min_query_count: int
    offline_expected_qps: float
    single_stream_expected_latency_ms: float
    ttft_ms: float                  # the latency constraints (Server)
    tpot_ms: float
    percentile: int

    def describe(self) -> dict:
        """As LoadGen names them (its ttft_latency, tpot_latency, target latency percentile)."""
        out = dict(self.__dict__)
        for ours, theirs in (("ttft_ms", "ttft_latency_ms"), ("tpot_ms", "tpot_latency_ms"),
                             ("percentile", "target_latency_percentile")):
            out[theirs] = out.pop(ours)
        return out


def loadgen() -> Any:
    try:
        import mlperf_loadgen
    except ImportError as exc:
        raise CaseError("MLPerf LoadGen (module mlperf_loadgen) is not installed in this python: "
                        "add mlcommons-loadgen to the image's requirements.txt (in-container "
                        "mode and selftest: pip install mlcommons-loadgen, or the selftest "
                        "extra)") from exc
    return mlperf_loadgen


def test_settings(lg: Any, scenario: str, limits: Limits, target_qps: Optional[float]) -> Any:
    ts = lg.TestSettings()
    ts.scenario = getattr(lg.TestScenario, SCENARIOS[scenario])
    ts.mode = lg.TestMode.PerformanceOnly
    ts.min_duration_ms = limits.min_duration_ms
    ts.max_duration_ms = limits.max_duration_ms
    ts.min_query_count = limits.min_query_count
    ts.offline_expected_qps = limits.offline_expected_qps
    ts.single_stream_expected_latency_ns = int(limits.single_stream_expected_latency_ms * 1e6)
    ts.use_token_latencies = True
    ts.ttft_latency = int(limits.ttft_ms * 1e6)
    ts.tpot_latency = int(limits.tpot_ms * 1e6)
    ts.server_target_latency_percentile = limits.percentile / 100.0
    ts.single_stream_target_latency_percentile = limits.percentile / 100.0
    if target_qps is not None:
        ts.server_target_qps = target_qps
    return ts


def log_settings(lg: Any, outdir: Path) -> Any:
    output = lg.LogOutputSettings()
    output.outdir = str(outdir)
    output.copy_summary_to_stdout = False
    settings = lg.LogSettings()
    settings.log_output = output
    settings.enable_trace = False
    return settings


class Worker:
    """LoadGen's SUT: ``issue`` (LoadGen's thread) queues; the worker thread batches and runs."""

    def __init__(self, lg: Any, gen: Generator, requests: Sequence[Request], batch_size: int):
        self.lg, self.gen, self.requests, self.batch_size = lg, gen, requests, batch_size
        self.queue: queue.Queue = queue.Queue()
        self.served: list[Served] = []
        self.error: Optional[BaseException] = None
        self.thread = threading.Thread(target=self._loop, name="loadgen-sut", daemon=True)

    def issue(self, samples: Sequence[Any]) -> None:
        now = time.perf_counter()
        for sample in samples:
            self.queue.put((sample, now))

    def flush(self) -> None:
        """LoadGen's flush_queries: nothing is held back, every query is on the queue."""

    def stop(self) -> None:
        self.queue.put(None)
        self.thread.join()

    def _loop(self) -> None:
        while (batch := self._next_batch()) is not None:
            self._run(batch)

    def _next_batch(self) -> Optional[list[tuple[Any, float]]]:
        first = self.queue.get()
        if first is None:
            return None
        batch = [first]
        while len(batch) < self.batch_size:
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self.queue.put(None)   # stop after this batch
                break
            batch.append(item)
        return batch

    def _run(self, batch: list[tuple[Any, float]]) -> None:
        lg, ids = self.lg, [sample.id for sample, _ in batch]
        if self.error is not None:   # failed before: complete the rest unrun, LoadGen ends
            lg.QuerySamplesComplete([lg.QuerySampleResponse(i, 0, 0, 0) for i in ids])
            return
        hook = getattr(self.gen, "on_first_token", False)
        if hook is not False:
            self.gen.on_first_token = lambda: lg.FirstTokenComplete(  # type: ignore[attr-defined]
                [lg.QuerySampleResponse(i, 0, 0) for i in ids])
        try:
            done = self.gen.generate([self.requests[s.index] for s, _ in batch])
        except BaseException as exc:  # noqa: BLE001 - reported after LoadGen returns
            self.error = exc
            lg.QuerySamplesComplete([lg.QuerySampleResponse(i, 0, 0, 0) for i in ids])
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
    lg = loadgen()
    logs.mkdir(parents=True, exist_ok=True)
    before = (gen.accounting.engine_s, gen.accounting.harness_s)
    worker = Worker(lg, gen, requests, batch_size)
    worker.thread.start()
    sut = lg.ConstructSUT(worker.issue, worker.flush)
    qsl = lg.ConstructQSL(len(requests), len(requests), _ignore, _ignore)
    try:
        lg.StartTestWithLogSettings(sut, qsl, test_settings(lg, scenario, limits, target_qps),
                                    log_settings(lg, logs))
    finally:
        worker.stop()
        lg.DestroyQSL(qsl)
        lg.DestroySUT(sut)
    if worker.error is not None:
        raise worker.error
    summary, problems = loadgen_log.parse((logs / LOG_FILES[0]).read_text(encoding="utf-8"))
    record = ScenarioRun(tuple(worker.served), gen.accounting.engine_s - before[0],
                         gen.accounting.harness_s - before[1])
    return Measured(record, summary, tuple(problems), logs,
                    getattr(gen, "on_first_token", False) is not False)


def _ignore(indices: Sequence[int]) -> None:
    """LoadGen's load/unload of samples: the requests are token lists already in memory."""
