"""MLPerf LoadGen's summary log read into figures, and the LoadGen settings inference cases refuse.

The summaries in data/loadgen/ are LoadGen 6.0.17's own (mlcommons-loadgen from PyPI, token
latencies on, a SUT sleeping 5 ms to the first token and 10 ms more to the last, 100 ms
minimum duration): each scenario's headline, verdict, early-stopping lines and statistics."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf_runtime.inference.loadgen_log import parse
from chipperf_runtime.inference.loadgen_rules import scenario_problems

DATA = Path(__file__).parent / "data" / "loadgen"


def summary(name: str) -> dict:
    figures, problems = parse((DATA / f"{name}_token_summary.txt").read_text())
    assert problems == []
    return figures


def test_server_summary_gives_rates_verdict_early_stopping_and_token_latencies() -> None:
    f = summary("server")
    assert (f["scenario"], f["mode"], f["result"], f["valid"]) == (
        "Server", "PerformanceOnly", "INVALID", False)
    assert f["samples_per_s"] == 45.74 and f["tokens_per_s"] == 238.23
    assert f["scheduled_samples_per_s"] == 47.16
    assert f["checks"] == {"latency_constraints": True, "min_duration": True,
                           "min_queries": True, "early_stopping": False}
    assert f["invalid_because"] == ["early_stopping"]
    assert f["early_stopping"][:2] == ["Run unsuccessful.", "Processed 25 queries."]
    assert f["latency_ms"]["p50"] == pytest.approx(17.501096)
    assert f["latency_ms"]["min"] == pytest.approx(15.640359)
    assert f["ttft_ms"]["p90"] == pytest.approx(18.584089)
    assert f["ttft_ms"]["mean"] == pytest.approx(9.956776)
    assert f["tpot_ms"]["p99"] == pytest.approx(2.971254)
    assert set(f["tpot_ms"]) == {"min", "max", "mean", "p50", "p90", "p95", "p97", "p99", "p99.9"}


def test_offline_summary_names_the_failed_minimum_and_loadgens_recommendation() -> None:
    f = summary("offline")
    assert f["samples_per_s"] == 245.348 and f["tokens_per_s"] == 1226.74
    assert f["invalid_because"] == ["min_duration"] and f["early_stopping"] == []
    assert f["recommendations"] == ["Increase expected QPS so the loadgen pre-generates a "
                                    "larger (coalesced) query."]
    assert "ttft_ms" not in f   # LoadGen's Offline summary has no token latencies


def test_single_stream_summary_keeps_the_percentile_it_is_judged_by() -> None:
    f = summary("single_stream")
    assert f["judged_by"] == {"latency_ms": {"percentile": 90.0, "value": pytest.approx(15.717646)},
                              "ttft_ms": {"percentile": 90.0, "value": pytest.approx(5.483431)}}
    assert f["queries_per_s"] == 63.23 and f["queries_per_s_without_loadgen"] == 63.77
    assert f["early_stopping"] == ["Only processed 33 queries.",
                                   "Need to process at least 64 queries for early stopping."]


def test_a_summary_cut_before_its_verdict_is_a_problem_not_a_verdict() -> None:
    text = (DATA / "server_token_summary.txt").read_text().split("Result is")[0]
    figures, problems = parse(text)
    assert figures["valid"] is False and "result" not in figures
    assert problems == ["mlperf_log_summary.txt: no 'Result is' line: the run did not finish; "
                        "see mlperf_log_detail.txt"]


BASE = {"scenarios": ["offline", "single_stream", "server"], "loadgen_min_duration_ms": 600000,
        "loadgen_max_duration_ms": 0, "offline_expected_qps": 10.0,
        "single_stream_expected_latency_ms": 1000.0, "server_rates": []}


@pytest.mark.parametrize("change,message", [
    ({"scenarios": ["offline", "steady"]},
     "scenarios: 'steady' is not a MLPerf LoadGen scenario this case runs: use offline, "
     "single_stream, server"),
    ({"scenarios": ["multi_stream"]}, "scenarios: 'multi_stream' is not run by this case: "
     "LoadGen's MultiStream"),
    ({"scenarios": []}, "scenarios: must be a non-empty list of offline, single_stream, server"),
    ({"server_rates": [0]}, "server_rates: LoadGen's server_target_qps must be > 0, got [0]"),
    ({"scenarios": ["server"]}, "scenarios: server without server_rates takes its rates from "
     "the offline scenario"),
    ({"offline_expected_qps": 0}, "offline_expected_qps: must be a number > 0"),
    ({"loadgen_max_duration_ms": -1}, "loadgen_max_duration_ms: must be 0 (no limit)"),
])
def test_settings_loadgen_cannot_run_are_one_clear_message_each(change, message) -> None:
    problems = scenario_problems({**BASE, **change})
    assert len(problems) == 1 and problems[0].startswith(message), problems


def test_the_shipped_settings_have_no_problem() -> None:
    assert scenario_problems(BASE) == []
    assert scenario_problems({**BASE, "scenarios": ["server"], "server_rates": [2.5]}) == []


# a batch case's keys (resnet50, bert_large, ...): one server rate and its latency bound
BATCH = {"scenarios": ["offline", "single_stream", "server"], "loadgen_min_duration_ms": 600000,
         "loadgen_max_duration_ms": 0, "offline_expected_qps": 10.0,
         "single_stream_expected_latency_ms": 10.0, "server_target_qps": 10.0,
         "server_latency_ms": 15.0}


@pytest.mark.parametrize("change,message", [
    ({"server_target_qps": 0}, "server_target_qps: must be a number > 0 (LoadGen's "
     "server_target_qps), got 0"),
    ({"server_latency_ms": None}, "server_latency_ms: must be a number > 0"),
    ({"scenarios": ["multi_stream"]}, "scenarios: 'multi_stream' is not run by this case"),
    ({"loadgen_min_duration_ms": -5}, "loadgen_min_duration_ms: must be a number > 0"),
])
def test_a_batch_cases_loadgen_settings_are_checked_the_same_way(change, message) -> None:
    problems = scenario_problems({**BATCH, **change})
    assert len(problems) == 1 and problems[0].startswith(message), problems


def test_a_batch_case_without_server_needs_no_server_bound() -> None:
    assert scenario_problems(BATCH) == []
    assert scenario_problems({**BATCH, "scenarios": ["offline"], "server_target_qps": 0}) == []
