"""MLPerf LoadGen (``mlcommons-loadgen``, imported as ``mlperf_loadgen``) as every inference case
drives it: the settings it is told, the system under test's queue, one performance test.

LoadGen owns the scenario: when each query is issued (Offline: all at once; SingleStream: the
next when the previous completed; Server: Poisson arrivals at the target rate), how many and for
how long (minimum duration and query count), and the verdict (VALID or INVALID: the minimums,
the latency constraints, early stopping). A case owns the system under test: LoadGen's issue
thread puts each query on a ``Worker``'s queue; the worker thread takes what has arrived, up to
``batch_size``, and ``serve``s it (the batch cases: ``inference/scenarios.py``; the LLM case:
``llm/loadgen_sut.py``). ``run_test`` runs one test and returns LoadGen's summary as figures
(``loadgen_log.parse``); LoadGen's own logs (``mlperf_log_summary.txt``,
``mlperf_log_detail.txt``) stay in the directory given.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from chipperf_runtime.inference import loadgen_log
from chipperf_runtime.inference.errors import CaseError

LOG_FILES = ("mlperf_log_summary.txt", "mlperf_log_detail.txt")
# chipperf's scenario names -> LoadGen's TestScenario members
SCENARIOS = {"offline": "Offline", "single_stream": "SingleStream", "server": "Server"}
MLPERF_MIN_DURATION_MS = 600_000    # MLPerf Inference's minimum run per scenario (10 minutes)
# MLPerf Inference's minimum queries per scenario (datacenter/edge rules; Offline: one query of
# this many samples); the LLM benchmarks have their own
MLPERF_MIN_QUERIES = {"offline": 24_576, "single_stream": 1_024, "server": 270_336}

Samples = Callable[[Sequence[int]], None]


@dataclass(frozen=True)
class Limits:
    """What LoadGen is told besides the scenario (times in ms; MLPerf's rules in the docs).
    ``ttft_ms``/``tpot_ms`` (token latencies, the LLM case) or ``latency_ms`` (one latency per
    query) are the Server constraint at ``percentile``; None: not given."""

    min_duration_ms: int
    max_duration_ms: int            # 0: none
    min_query_count: int
    offline_expected_qps: float
    single_stream_expected_latency_ms: float
    percentile: int
    ttft_ms: Optional[float] = None
    tpot_ms: Optional[float] = None
    latency_ms: Optional[float] = None

    def describe(self) -> dict:
        """As LoadGen names them (its ttft_latency, tpot_latency, server_target_latency,
        target latency percentile); constraints not given are left out."""
        out = {k: v for k, v in self.__dict__.items() if v is not None}
        for ours, theirs in (("ttft_ms", "ttft_latency_ms"), ("tpot_ms", "tpot_latency_ms"),
                             ("latency_ms", "server_target_latency_ms"),
                             ("percentile", "target_latency_percentile")):
            if ours in out:
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
    ts.server_target_latency_percentile = limits.percentile / 100.0
    ts.single_stream_target_latency_percentile = limits.percentile / 100.0
    if limits.ttft_ms is not None and limits.tpot_ms is not None:
        ts.use_token_latencies = True
        ts.ttft_latency = int(limits.ttft_ms * 1e6)
        ts.tpot_latency = int(limits.tpot_ms * 1e6)
    if limits.latency_ms is not None:
        ts.server_target_latency_ns = int(limits.latency_ms * 1e6)
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
    """LoadGen's SUT: ``issue`` (LoadGen's thread) queues each sample with its arrival time;
    the worker thread takes what has arrived, up to ``batch_size``, and runs ``_run`` on it.
    ``serve`` (a subclass's) does the work of a batch and returns each sample's response size;
    an exception there is kept, the rest complete unrun, and ``run_test`` raises it."""

    def __init__(self, lg: Any, batch_size: int):
        self.lg, self.batch_size = lg, batch_size
        self.queue: queue.Queue = queue.Queue()
        self.error: Optional[BaseException] = None
        self.thread = threading.Thread(target=self._loop, name="loadgen-sut", daemon=True)

    def issue(self, samples: Sequence[Any]) -> None:
        arrival = time.perf_counter()
        for sample in samples:
            self.queue.put((sample, arrival))

    def flush(self) -> None:
        """LoadGen's flush_queries: nothing is held back, every query is on the queue."""

    def stop(self) -> None:
        self.queue.put(None)
        self.thread.join()

    def serve(self, batch: list[tuple[Any, float]]) -> Sequence[int]:
        raise NotImplementedError

    def complete_unrun(self, ids: Sequence[int]) -> None:
        self.lg.QuerySamplesComplete([self.lg.QuerySampleResponse(i, 0, 0, 0) for i in ids])

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
        ids = [sample.id for sample, _ in batch]
        if self.error is not None:   # failed before: complete the rest unrun, LoadGen ends
            self.complete_unrun(ids)
            return
        try:
            sizes = self.serve(batch)
        except BaseException as exc:  # noqa: BLE001 - raised by run_test after LoadGen returns
            self.error = exc
            self.complete_unrun(ids)
            return
        lg = self.lg
        lg.QuerySamplesComplete([lg.QuerySampleResponse(i, 0, 0, n) for i, n in zip(ids, sizes)])


def run_test(scenario: str, worker: Worker, samples: tuple[int, int], limits: Limits,
             logs: Path, target_qps: Optional[float] = None,
             load: Optional[Samples] = None, unload: Optional[Samples] = None
             ) -> tuple[dict, list[str]]:
    """One LoadGen performance test of ``scenario`` on ``worker`` over a QSL of
    ``samples`` = (total, performance set) samples; ``load``/``unload`` are the QSL's
    LoadSamplesToRam / UnloadSamplesFromRam. Returns LoadGen's summary as (figures, problems)."""
    lg = worker.lg
    logs.mkdir(parents=True, exist_ok=True)
    worker.thread.start()
    sut = lg.ConstructSUT(worker.issue, worker.flush)
    qsl = lg.ConstructQSL(samples[0], samples[1], load or _ignore, unload or _ignore)
    try:
        lg.StartTestWithLogSettings(sut, qsl, test_settings(lg, scenario, limits, target_qps),
                                    log_settings(lg, logs))
    finally:
        worker.stop()
        lg.DestroyQSL(qsl)
        lg.DestroySUT(sut)
    if worker.error is not None:
        raise worker.error
    return loadgen_log.parse((logs / LOG_FILES[0]).read_text(encoding="utf-8"))


def record(limits: Limits, min_query_count: str) -> dict:
    """FINISHED's word on LoadGen: package, version, mode, what it was told, and a note when the
    minimum duration is below MLPerf's."""
    from importlib.metadata import version

    return {"package": "mlcommons-loadgen", "version": version("mlcommons-loadgen"),
            "mode": "PerformanceOnly", **limits.describe(), "min_query_count": min_query_count,
            "note": None if limits.min_duration_ms >= MLPERF_MIN_DURATION_MS else
            f"min_duration_ms {limits.min_duration_ms} is below MLPerf's "
            f"{MLPERF_MIN_DURATION_MS}: a reduced run, not an MLPerf result (LoadGen judges each "
            "scenario against these settings, not MLPerf's)"}


def verdict_text(verdict: dict) -> str:
    """VALID, or INVALID with the checks that failed."""
    failed = verdict["invalid_because"]
    return str(verdict["result"]) + (f" ({', '.join(failed)})" if failed else "")


def _ignore(indices: Sequence[int]) -> None:
    """A QSL whose samples are in memory already: nothing to load or unload."""
