"""The served-LLM sweep's pure parts: /metrics parsing, vLLM's result JSON, the points, the
counter check (the server processes themselves: tests/runtime/test_served_llm_server.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm.served import loadgen, promtext, sweep
from chipperf_runtime.inference.llm.served.loadgen import PointSpec, Shape

METRICS = """# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="/m"} 120.0
vllm:prompt_tokens_total{engine="1",model_name="/m"} 8.0
vllm:generation_tokens_total{engine="0",model_name="/m"} 64.0
vllm:num_requests_running{engine="0",model_name="/m"} 0.0
process_start_time_seconds 1.7e9
"""
CHAT = Shape("chat", 1024, 1024)


def test_token_counters_sum_label_sets() -> None:
    assert promtext.token_counters(METRICS) == {"prompt_tokens": 128.0, "generation_tokens": 64.0}


def test_a_bad_metrics_line_is_a_problem_not_an_exception() -> None:
    samples, problems = promtext.parse("good 1\n{broken\nworse one\n")
    assert samples == [("good", "", 1.0)]
    assert [p.split(":")[0] for p in problems] == ["line 2", "line 3"]


def test_a_missing_counter_is_none() -> None:
    assert promtext.token_counters("other_total 3\n") == {"prompt_tokens": None,
                                                          "generation_tokens": None}


def test_points_cover_every_shape_and_concurrency_ascending() -> None:
    points = sweep.plan_points([CHAT, Shape("summarisation", 64, 8)], [4, 1, 2], 3, seed=7)
    assert [(p.shape.name, p.concurrency, p.prompts) for p in points] == [
        ("chat", 1, 3), ("chat", 2, 6), ("chat", 4, 12),
        ("summarisation", 1, 3), ("summarisation", 2, 6), ("summarisation", 4, 12)]


@pytest.mark.parametrize("bad", [[0], [1, -2], [], [True], [1.5]])
def test_a_concurrency_below_one_is_one_clear_message(bad: list) -> None:
    with pytest.raises(CaseError, match=r"serve_concurrency: every value must be a whole "
                                        r"number >= 1"):
        sweep.plan_points([CHAT], bad, 2, seed=0)


def test_bench_argv_is_vllm_bench_serve_through_python_m() -> None:
    argv = loadgen.bench_argv(PointSpec(CHAT, 4, 8, 1), "http://127.0.0.1:8000", Path("/m"),
                              Path("/out/chat_c4.json"), python="/py")
    assert argv[:5] == ["/py", "-m", "vllm.entrypoints.cli.main", "bench", "serve"]
    pairs = dict(zip(argv[5::1], argv[6::1]))
    assert pairs["--max-concurrency"] == "4" and pairs["--num-prompts"] == "8"
    assert pairs["--random-input-len"] == "1024" and pairs["--result-filename"] == "chat_c4.json"
    assert "--ignore-eos" in argv and pairs["--metric-percentiles"] == "50,90,99"


def result_json(**over: float) -> dict:
    data = {"duration": 2.0, "completed": 8, "total_input_tokens": 8192,
            "total_output_tokens": 8192, "request_throughput": 4.0, "output_throughput": 4096.0}
    for name, base in (("ttft", 50.0), ("tpot", 8.0), ("itl", 8.0), ("e2el", 900.0)):
        data.update({f"mean_{name}_ms": base, f"p50_{name}_ms": base,
                     f"p90_{name}_ms": base * 1.5, f"p99_{name}_ms": base * 2})
    data.update(over)
    return data


def test_point_figures_per_chip_and_per_user() -> None:
    figures = loadgen.point_figures(result_json(), PointSpec(CHAT, 4, 8, 1), chips=2)
    assert figures["output_tokens_per_s_per_chip"] == 2048.0
    assert figures["tokens_per_s_per_user"] == 125.0           # 1000 / TPOT p50 of 8 ms
    assert figures["ttft_ms"] == {"p50": 50.0, "p90": 75.0, "p99": 100.0, "mean": 50.0}
    assert figures["failed"] == 0 and figures["e2el_ms"]["p99"] == 1800.0


def test_requests_not_completed_are_failed() -> None:
    figures = loadgen.point_figures(result_json(completed=6), PointSpec(CHAT, 4, 8, 1), chips=1)
    assert figures["failed"] == 2


def test_counter_check_agrees_or_says_by_how_much() -> None:
    figures = {"total_input_tokens": 100, "total_output_tokens": 40}
    before = {"prompt_tokens": 10.0, "generation_tokens": 5.0}
    same = sweep.counter_check(figures, before, {"prompt_tokens": 110.0, "generation_tokens": 45.0})
    assert all(c["agree"] for c in same.values())
    off = sweep.counter_check(figures, before, {"prompt_tokens": 111.0, "generation_tokens": None})
    assert off["prompt_tokens"] == {"loadgen": 100, "server": 101, "agree": False}
    assert "exports no generation_tokens" in off["generation_tokens"]["why"]
