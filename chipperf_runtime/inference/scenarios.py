"""The batch cases' scenarios (resnet50, bert_large and every case of ``runner.py``), run by
MLPerf LoadGen (``inference/loadgen.py``) on the case's engine.

- offline: LoadGen issues every query at once (at least ``offline_passes`` passes over the
  full batches of the data set, and the minimum duration); the SUT reads, pre-processes and
  moves each batch of ``batch_size`` to the device, runs the engine (``timed_call``: a device
  synchronisation before and after), post-processes on the host, and completes the batch.
  LoadGen's samples/s is the "whole" throughput (what a user gets); items over the engine
  calls' seconds is the "core" one.
- single stream: the QSL loads the performance set pre-processed onto the device (MLPerf's
  untimed LoadSamplesToRam); LoadGen issues the next one-item query when the previous one
  completed (engine + post-processing); it judges the run by the latency percentile.
- server (only where the configuration lists it): LoadGen issues one-item queries as a
  Poisson process at ``server_target_qps``; whenever the engine is free the SUT batches up to
  ``batch_size`` of those that arrived (pre-processing included, as offline), and LoadGen
  checks the latency at the percentile against ``server_latency_ms``.

A batch shorter than ``batch_size`` is padded with its first item (static shapes: an ONNX or
TensorRT engine is built for one batch size); padded rows are computed and dropped. The
figures are LoadGen's (its summary log: samples/s, latency percentiles, VALID or INVALID and
why), with the SUT's own count beside them; LoadGen's logs stay in ``<logs>/<scenario>``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Optional, Sequence

import torch

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference import loadgen as harness
from chipperf_runtime.inference.case import Dataset, top1
from chipperf_runtime.inference.engines.base import Runner
from chipperf_runtime.inference.measure import Decide, postprocess, to_device
from chipperf_runtime.timing import now, timed_call


class BatchWorker(harness.Worker):
    """The SUT of a batch case: each batch through the engine, timed with device syncs."""

    def __init__(self, lg: Any, run: Runner, data: Dataset, batch_size: int,
                 device: TorchDevice, decide: Decide = top1):
        super().__init__(lg, batch_size)
        self.run, self.data, self.device, self.decide = run, data, device, decide
        self.resident: dict[int, tuple[torch.Tensor, ...]] = {}   # single stream's QSL
        self.items = self.batches = 0
        self.engine_s = 0.0
        self.first: Optional[float] = None   # the first arrival and the last completion
        self.last = 0.0

    def load(self, indices: Sequence[int]) -> None:
        """QSL LoadSamplesToRam: the items pre-processed and on the device (single stream)."""
        for i in indices:
            self.resident[i] = to_device(self.data.batch([i]).inputs, self.device)

    def unload(self, indices: Sequence[int]) -> None:
        for i in indices:
            self.resident.pop(i, None)

    def serve(self, batch: list[tuple[Any, float]]) -> Sequence[int]:
        if self.first is None:
            self.first = batch[0][1]
        output, seconds = timed_call(partial(self.run, *self.inputs([s.index for s, _ in batch])),
                                     self.device.synchronize)
        postprocess(output, self.decide)
        self.engine_s += seconds
        self.items, self.batches = self.items + len(batch), self.batches + 1
        self.last = now()
        return [0] * len(batch)

    def inputs(self, indices: list[int]) -> tuple[torch.Tensor, ...]:
        if len(indices) == 1 and indices[0] in self.resident:
            return self.resident[indices[0]]
        padded = indices + [indices[0]] * (self.batch_size - len(indices))
        return to_device(self.data.batch(padded).inputs, self.device)


def offline(run: Runner, data: Dataset, batch_size: int, passes: int, device: TorchDevice,
            limits: harness.Limits, logs: Path, decide: Decide = top1) -> dict:
    """At least ``passes`` passes over the full batches of ``data``, pre-processing included."""
    worker = BatchWorker(harness.loadgen(), run, data, batch_size, device, decide)
    per_pass = len(data) // batch_size * batch_size
    limits = _at_least(limits, passes * per_pass)
    out = _test("offline", worker, (len(data), len(data)), limits, logs)
    return {**out, "passes": passes}


def single_stream(run: Runner, data: Dataset, queries: int, device: TorchDevice,
                  limits: harness.Limits, logs: Path, decide: Decide = top1) -> dict:
    """At least ``queries`` one-item queries on device-resident items, one after another."""
    worker = BatchWorker(harness.loadgen(), run, data, 1, device, decide)
    resident = min(queries, len(data))
    return _test("single_stream", worker, (len(data), resident), _at_least(limits, queries),
                 logs, load=worker.load, unload=worker.unload)


def server(run: Runner, data: Dataset, batch_size: int, queries: int, target_qps: float,
           device: TorchDevice, limits: harness.Limits, logs: Path,
           decide: Decide = top1) -> dict:
    """One-item queries arriving at ``target_qps`` (Poisson), batched up to ``batch_size``."""
    worker = BatchWorker(harness.loadgen(), run, data, batch_size, device, decide)
    out = _test("server", worker, (len(data), len(data)), _at_least(limits, queries), logs,
                target_qps)
    return {**out, "target_qps": target_qps}


def _at_least(limits: harness.Limits, queries: int) -> harness.Limits:
    return replace(limits, min_query_count=queries)


def _test(scenario: str, worker: BatchWorker, samples: tuple[int, int], limits: harness.Limits,
          logs: Path, target_qps: Optional[float] = None, **qsl: Any) -> dict:
    where = logs / scenario
    summary, problems = harness.run_test(scenario, worker, samples, limits, where, target_qps,
                                         **qsl)
    out = figures(worker, summary, problems, where, logs.parent)
    return {**out, "mlperf_minimums": mlperf_minimums(scenario, out["items"], limits)}


def mlperf_minimums(scenario: str, items: int, limits: harness.Limits) -> dict:
    """This run against MLPerf's own minimums (LoadGen judged it against the settings given)."""
    duration, queries = harness.MLPERF_MIN_DURATION_MS, harness.MLPERF_MIN_QUERIES[scenario]
    short = [f"min_duration_ms {limits.min_duration_ms} < {duration}"] \
        if limits.min_duration_ms < duration else []
    short += [f"{items} {'samples' if scenario == 'offline' else 'queries'} < {queries}"] \
        if items < queries else []
    return {"min_duration_ms": duration, "min_queries": queries, "met": not short,
            "short_of": short}


def figures(worker: BatchWorker, lg: dict, problems: Sequence[str], where: Path,
            root: Path) -> dict:
    """LoadGen's figures beside the SUT's count of the same run."""
    span = worker.last - worker.first if worker.first is not None else 0.0
    own = worker.items / span if span > 0 else None
    out: dict[str, Any] = {
        "items": worker.items, "batches": worker.batches, "wall_s": span,
        "compute_s": worker.engine_s,
        "samples_per_s": lg.get("samples_per_s") or lg.get("queries_per_s") or own,
        "core_samples_per_s": worker.items / worker.engine_s if worker.engine_s else None}
    if lg.get("latency_ms"):
        out["latency_ms"] = {**lg["latency_ms"], "count": worker.items}
    out["loadgen"] = {
        "scenario": lg.get("scenario"), "result": lg.get("result"), "valid": lg["valid"],
        "invalid_because": lg["invalid_because"], "checks": lg["checks"],
        "early_stopping": lg["early_stopping"], "recommendations": lg["recommendations"],
        "judged_by": lg.get("judged_by"), "problems": list(problems),
        "samples_per_s_from": "loadgen" if lg.get("samples_per_s") or lg.get("queries_per_s")
        else "chipperf: items / span (LoadGen's summary has no samples/s)",
        "logs": str(where.relative_to(root))}
    return out
