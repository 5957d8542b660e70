"""The LLM case's scenarios through MLPerf LoadGen (mlcommons-loadgen) on a tiny random llama:
offline, single stream and server each run as a LoadGen performance test, the case's
FINISHED record carries LoadGen's own figures and verdict (its summary file, read back here,
agrees), LoadGen's logs stay in the output directory, and a rate whose latency bound LoadGen
finds unmet ends the server search. CI-size LoadGen minimums: the runs are INVALID by MLPerf's
rules (early stopping wants more queries) and the record says so."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from chipperf_runtime.inference import config, loadgen_log
from chipperf_runtime.inference.llm import model, runner
from chipperf_runtime.inference.llm.engines import TransformersGenerator
from chipperf_runtime.inference.llm.prompts import Lengths, Workload
from chipperf_runtime.inference.llm.settings import LLMSettings
from chipperf_runtime.perflog import PerfLogger

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "inference" / "configs" / "llama3_8b"
TINY = {"vocab_size": 64, "hidden_size": 16, "intermediate_size": 32, "num_layers": 1,
        "num_heads": 2, "num_kv_heads": 1, "max_position": 64, "prompt_tokens_min": 4,
        "prompt_tokens_max": 8, "output_tokens_min": 2, "output_tokens_max": 4,
        "offline_requests": 6, "single_stream_requests": 3, "server_requests": 4,
        "server_load_fractions": [0.5], "loadgen_min_duration_ms": 50, "accuracy_requests": 1}


@pytest.fixture(scope="module")
def case(monkeypatch_module) -> tuple:
    monkeypatch_module.setenv("CHIPPERF_VENDOR", "cpu")
    monkeypatch_module.setenv("CHIPPERF_DEVICE", "cpu")
    merged = {**config.load(CONFIG, "cpu_configuration.yaml"), **TINY}
    s = LLMSettings.from_config(merged)
    device = runner.open_device(s)  # type: ignore[arg-type]
    reference = model.build(model.llama_config(merged), device.device, s.seed)
    tokens = np.random.default_rng(0).integers(3, 64, size=2000)
    workload = Workload(tokens, s.prompt, Lengths(2, 4), s.seed, "synthetic", 64)
    return merged, s, device, reference, workload


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def finished(case: tuple, out: Path, **sets) -> dict:
    merged, _, device, reference, workload = case
    s = LLMSettings.from_config({**merged, **sets})
    gen = TransformersGenerator(reference, device)
    return runner.measure_case(s, workload, gen, reference, device, PerfLogger(), (0.0, 0.0),
                               0.0, None, out / "loadgen")


def summary_of(out: Path, figures: dict) -> dict:
    logs = out / figures["loadgen"]["logs"]
    assert {p.name for p in logs.iterdir()} >= {"mlperf_log_summary.txt", "mlperf_log_detail.txt"}
    parsed, problems = loadgen_log.parse((logs / "mlperf_log_summary.txt").read_text())
    assert problems == []
    return parsed


def test_each_scenario_runs_through_loadgen_and_finished_carries_its_summary(case, tmp_path) -> None:
    f = finished(case, tmp_path)
    serving = f["serving"]
    offline = summary_of(tmp_path, serving["offline"])
    assert offline["scenario"] == "Offline" and serving["offline"]["requests"] == 6
    assert f["throughput"]["raw"] == offline["tokens_per_s"] == serving["offline"]["tokens_per_s"]
    assert serving["offline"]["requests_per_s"] == offline["samples_per_s"]
    single = summary_of(tmp_path, serving["single_stream"])
    assert single["scenario"] == "SingleStream" and serving["single_stream"]["requests"] == 3
    for key in ("p50", "p90", "p99", "mean", "min", "max"):
        assert f["latency_ms"][key] == single["latency_ms"][key]
        assert serving["single_stream"]["ttft_ms"][key] == single["ttft_ms"][key]
    assert serving["single_stream"]["requests_per_s"] == single["queries_per_s"]
    (rate,) = serving["server"]["rates"]
    server = summary_of(tmp_path, rate)
    assert server["scenario"] == "Server" and rate["tokens_per_s"] == server["tokens_per_s"]
    assert rate["tpot_ms"]["p99"] == server["tpot_ms"]["p99"]
    assert rate["meets_bound"] is server["checks"]["latency_constraints"] is True
    # CI-size minimums: early stopping needs far more queries, so LoadGen says INVALID
    for figures, parsed in ((serving["single_stream"], single), (rate, server)):
        assert figures["loadgen"]["result"] == parsed["result"] == "INVALID"
        assert "early_stopping" in figures["loadgen"]["invalid_because"]
        assert figures["loadgen"]["early_stopping"] == parsed["early_stopping"] != []
    assert "below MLPerf's 600000" in serving["loadgen"]["note"]
    # the verdict line lists LoadGen's failed checks: early stopping always at this size, and
    # min_duration too when the three queries end within the 100 ms minimum (a fast machine)
    because = serving["single_stream"]["loadgen"]["invalid_because"]
    assert serving["loadgen"]["results"]["single_stream"] == f"INVALID ({', '.join(because)})"
    assert set(because) <= {"early_stopping", "min_duration"}
    assert f["window_work"] == sum(r["output_tokens"] for r in
                                   (serving["offline"], serving["single_stream"], rate))


def test_a_rate_whose_latency_bound_loadgen_finds_unmet_ends_the_search(case, tmp_path) -> None:
    f = finished(case, tmp_path, scenarios=["server"], server_rates=[50.0, 100.0],
                 ttft_bound_ms=0.001, loadgen_min_duration_ms=10)
    server = f["serving"]["server"]
    (only,) = server["rates"]   # the higher rate is not tried after the first missed
    assert only["target_rate"] == 50.0 and only["meets_bound"] is False
    assert only["why_not"].startswith("LoadGen: latency constraints not met (p99 TTFT")
    assert summary_of(tmp_path, only)["checks"]["latency_constraints"] is False
    assert server["max_rate_meeting_bound"] is None and "offline" not in f["serving"]
    assert f["throughput"]["scenario"] == "server"
