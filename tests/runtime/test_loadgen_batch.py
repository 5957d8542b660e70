"""The batch cases' scenarios (resnet50, bert_large, ...) through MLPerf LoadGen
(mlcommons-loadgen) on a 10-item data set and a one-line engine, with millisecond minimum
durations: LoadGen issues the queries, the SUT (``inference/scenarios.py``) runs them through
the engine with device syncs, and the figures are LoadGen's own (its summary file, read back
here, agrees), its logs kept; "whole" (LoadGen's samples/s, host reading and post-processing
included) is never above "core" (items over the engine calls' seconds); a short batch is
padded to the engine's batch size; an engine that fails mid-run stops the test with its error."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import torch

from chipperf_runtime.device.torch import open_torch_device
from chipperf_runtime.inference import loadgen, loadgen_log, scenarios
from chipperf_runtime.inference.case import Batch

CPU = open_torch_device(0, {"CHIPPERF_VENDOR": "cpu", "CHIPPERF_DEVICE": "cpu"})
LIMITS = loadgen.Limits(min_duration_ms=5, max_duration_ms=0, min_query_count=1,
                        offline_expected_qps=1.0, single_stream_expected_latency_ms=1000.0,
                        percentile=90)


class Items:
    """10 items of 3 features; label = index of the largest feature."""

    def __init__(self) -> None:
        self.x = torch.randn(10, 3, generator=torch.Generator().manual_seed(0))

    def __len__(self) -> int:
        return len(self.x)

    def batch(self, indices) -> Batch:
        rows = self.x[list(indices)]
        return Batch((rows,), rows.argmax(-1))

    def describe(self) -> dict:
        return {"items": len(self.x)}


class Engine:
    """Sleeps 1 ms a call (so the engine's share of the time is real) and records shapes."""

    def __init__(self) -> None:
        self.shapes: list[tuple[int, ...]] = []

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        self.shapes.append(tuple(x.shape))
        time.sleep(0.001)
        return x * 2


def summary(root: Path, figures: dict) -> dict:
    logs = root / figures["loadgen"]["logs"]
    assert {p.name for p in logs.iterdir()} >= set(loadgen.LOG_FILES)
    parsed, problems = loadgen_log.parse((logs / loadgen.LOG_FILES[0]).read_text())
    assert problems == []
    return parsed


def test_offline_runs_passes_over_the_full_batches_and_reports_loadgens_figures(tmp_path) -> None:
    engine = Engine()
    f = scenarios.offline(engine, Items(), 4, 2, CPU, LIMITS, tmp_path / "loadgen")
    lg = summary(tmp_path, f)
    assert lg["scenario"] == "Offline" and f["loadgen"]["result"] == lg["result"]
    assert (f["items"], f["batches"], f["passes"]) == (16, 4, 2)   # 2 passes x 2 full batches
    assert engine.shapes == [(4, 3)] * 4
    assert f["samples_per_s"] == lg["samples_per_s"] and f["loadgen"]["samples_per_s_from"] == "loadgen"
    assert 0 < f["samples_per_s"] <= f["core_samples_per_s"]            # whole <= core
    assert 0.004 <= f["compute_s"] <= f["wall_s"]
    assert f["mlperf_minimums"] == {"min_duration_ms": 600000, "min_queries": 24576, "met": False,
                                    "short_of": ["min_duration_ms 5 < 600000", "16 samples < 24576"]}


def test_offline_pads_a_short_last_batch_to_the_engines_batch_size(tmp_path) -> None:
    engine = Engine()   # LoadGen issues 1.1 x expected qps x min duration = 11 samples
    limits = loadgen.Limits(10, 0, 1, 1000.0, 1000.0, 90)
    f = scenarios.offline(engine, Items(), 4, 1, CPU, limits, tmp_path / "loadgen")
    assert f["items"] == 11 and f["samples_per_s"] == summary(tmp_path, f)["samples_per_s"]
    assert engine.shapes == [(4, 3)] * 3 and f["batches"] == 3


def test_single_stream_is_judged_by_loadgen_at_its_percentile(tmp_path) -> None:
    engine = Engine()
    f = scenarios.single_stream(engine, Items(), 6, CPU, LIMITS, tmp_path / "loadgen")
    lg = summary(tmp_path, f)
    assert lg["scenario"] == "SingleStream" and f["items"] >= 6
    assert set(engine.shapes) == {(1, 3)} and f["latency_ms"]["count"] == f["items"]
    for key in ("p50", "p90", "p99", "mean", "min", "max"):
        assert f["latency_ms"][key] == lg["latency_ms"][key]
    assert f["latency_ms"]["min"] >= 1.0                                # the engine's 1 ms
    assert f["loadgen"]["judged_by"]["latency_ms"]["percentile"] == 90.0
    assert not f["loadgen"]["valid"] and "early_stopping" in f["loadgen"]["invalid_because"]


def test_server_batches_what_arrived_and_loadgen_checks_the_latency(tmp_path) -> None:
    engine = Engine()
    limits = loadgen.Limits(5, 0, 1, 1.0, 1000.0, 99, latency_ms=1000.0)
    f = scenarios.server(engine, Items(), 4, 20, 500.0, CPU, limits, tmp_path / "loadgen")
    lg = summary(tmp_path, f)
    assert lg["scenario"] == "Server" and f["target_qps"] == 500.0 and f["items"] >= 20
    assert lg["checks"]["latency_constraints"] is True        # 1 s at p99 for ~1 ms batches
    assert set(engine.shapes) == {(4, 3)} and f["batches"] <= f["items"]


def test_an_engine_failing_mid_run_ends_the_test_with_its_error(tmp_path) -> None:
    calls = []

    def brittle(x: torch.Tensor) -> torch.Tensor:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("device lost")
        return x

    with pytest.raises(RuntimeError, match="device lost"):
        scenarios.offline(brittle, Items(), 2, 2, CPU, LIMITS, tmp_path / "loadgen")
    assert len(calls) == 2     # the batches after the failure complete unrun
