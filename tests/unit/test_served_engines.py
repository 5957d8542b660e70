"""SGLang and TensorRT-LLM as served engines, without running either (no NVIDIA GPU here): their
command lines, TensorRT-LLM's options file, and their /metrics read into the token counts the
sweep checks, against samples of each server's real output format (cited per sample); which
engine may serve where (served/choice.py). The plan's refusals: test_engine_limits.py,
test_badinput_table.py and test_plan_engine_image.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm.served import choice, engines, trtstats
from chipperf_runtime.inference.llm.served.generator import ENV_PYTHON, generator_argv
from chipperf_runtime.inference.llm.served.server import ServerSpec

# SGLang's /metrics with --enable-metrics, as its documentation shows it
# (https://docs.sglang.io/references/production_metrics.html; histogram cut to two buckets)
SGLANG_METRICS = """\
# HELP sglang:prompt_tokens_total Number of prefill tokens processed.
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 8.128902e+06
# HELP sglang:generation_tokens_total Number of generation tokens processed.
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 7.557572e+06
# HELP sglang:token_usage The token usage
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.28
# HELP sglang:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE sglang:time_to_first_token_seconds histogram
sglang:time_to_first_token_seconds_sum{model_name="meta-llama/Llama-3.1-8B-Instruct"} 2.3518979474117756e+06
sglang:time_to_first_token_seconds_bucket{le="0.001",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.0
sglang:time_to_first_token_seconds_bucket{le="0.005",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.0
"""


def trtllm_iteration(number: int, ctx_tokens: int, ctx_requests: int, gen_requests: int,
                     completed: int) -> dict:
    """One iteration of trtllm-serve's /metrics: the top-level keys of the example output in
    docs/source/commands/trtllm-serve/trtllm-serve.rst ("Metrics Endpoint"), the
    inflightBatchingStats keys that TensorRT-LLM's tests/unittest/llmapi/test_llm.py
    (``validate_stats``) reads."""
    return {"gpuMemUsage": 76665782272, "iter": number, "iterLatencyMS": 7.00688362121582,
            "kvCacheStats": {"allocNewBlocks": 3126, "allocTotalBlocks": 3126,
                             "cacheHitRate": 0.00128, "freeNumBlocks": 101253,
                             "maxNumBlocks": 101256, "missedBlocks": 3121, "reusedBlocks": 4,
                             "tokensPerBlock": 32, "usedNumBlocks": 3},
            "numActiveRequests": 1, "numCompletedRequests": completed,
            "inflightBatchingStats": {"microBatchId": 0, "numContextRequests": ctx_requests,
                                      "numCtxTokens": ctx_tokens, "numGenRequests": gen_requests,
                                      "numPausedRequests": 0,
                                      "numScheduledRequests": ctx_requests + gen_requests}}


def one_request(first: int, prompt: int, output: int) -> list[dict]:
    """The iterations of one request of ``prompt`` tokens and ``output`` tokens out, as
    validate_stats expects them: a context iteration (its first token), output - 1 generation
    iterations, the last with numCompletedRequests 1."""
    rows = [trtllm_iteration(first, prompt, 1, 0, 0)]
    rows += [trtllm_iteration(first + i, 0, 0, 1, int(i == output - 1)) for i in range(1, output)]
    return rows


def spec(engine: str, **over) -> ServerSpec:
    fields = dict(precision="bf16", max_model_len=2048, max_num_seqs=64, seed=3,
                  memory_utilization=0.85, python="/py", tp_size=2,
                  options_file=Path("/out/trtllm-options.yaml"))
    return ServerSpec(engine, Path("/m"), 8100, **{**fields, **over})


def test_sglangs_command_line_is_its_launch_server_with_metrics() -> None:
    assert spec("sglang", extra_args=("--disable-radix-cache",)).argv() == [
        "/py", "-m", "sglang.launch_server", "--model-path", "/m", "--host", "127.0.0.1",
        "--port", "8100", "--dtype", "bfloat16", "--random-seed", "3", "--tp-size", "2",
        "--context-length", "2048", "--max-running-requests", "64",
        "--mem-fraction-static", "0.85", "--enable-metrics", "--disable-radix-cache"]


def test_trtllm_serve_loads_the_folder_with_its_pytorch_backend() -> None:
    assert spec("trtllm").argv() == [
        "/py", "-m", "tensorrt_llm.commands.serve", "serve", "/m", "--backend", "pytorch",
        "--host", "127.0.0.1", "--port", "8100", "--tp_size", "2", "--max_batch_size", "64",
        "--max_seq_len", "2048", "--kv_cache_free_gpu_memory_fraction", "0.85",
        "--extra_llm_api_options", "/out/trtllm-options.yaml"]
    with pytest.raises(ValueError, match="needs options_file"):
        spec("trtllm", options_file=None).argv()


def test_trtllms_options_file_turns_on_iteration_stats(tmp_path: Path) -> None:
    written = engines.write_options(spec("trtllm", options_file=tmp_path / "o" / "t.yaml"))
    assert written is not None
    assert json.loads(written.read_text()) == {
        "dtype": "bfloat16", "enable_iter_perf_stats": True,
        "iter_stats_max_iterations": engines.TRTLLM_STATS_ITERATIONS,
        "kv_cache_config": {"free_gpu_memory_fraction": 0.85, "enable_block_reuse": False}}
    assert engines.write_options(spec("sglang", options_file=tmp_path / "s.yaml")) is None
    assert not (tmp_path / "s.yaml").exists()


def test_sglangs_counters_are_read_from_its_prometheus_text() -> None:
    counted = engines.token_counters("sglang", SGLANG_METRICS, trtstats.IterationTotals())
    assert counted == {"prompt_tokens": 8128902.0, "generation_tokens": 7557572.0}


def test_trtllm_counts_every_iteration_once_across_reads() -> None:
    """Two requests (10 prompt tokens and 4 out; 7 and 3), read in three answers of /metrics
    (each answer holds the iterations since the previous read); a repeated row is not counted
    twice. Tokens: 17 prompt, 7 generated. A request's first token is counted when it
    completes, so only whole requests agree (the sweep reads before and after a point, idle)."""
    rows = one_request(1, 10, 4) + one_request(5, 7, 3)
    totals = trtstats.IterationTotals()
    seen = [engines.token_counters("trtllm", json.dumps(part), totals)
            for part in (rows[:2], rows[1:5], rows[5:])]
    assert seen[0] == {"prompt_tokens": 10.0, "generation_tokens": 1.0}    # mid-request
    assert seen[1] == {"prompt_tokens": 17.0, "generation_tokens": 4.0}    # first one done
    assert seen[2] == {"prompt_tokens": 17.0, "generation_tokens": 7.0}
    assert engines.token_counters("trtllm", "[]", totals) == seen[2]


def test_the_executors_json_text_rows_are_read_too() -> None:
    totals = trtstats.IterationTotals()
    text = json.dumps([json.dumps(row) for row in one_request(0, 5, 2)])
    assert engines.token_counters("trtllm", text, totals) == {"prompt_tokens": 5.0,
                                                             "generation_tokens": 2.0}


def test_dropped_or_unreadable_iterations_make_the_counts_unknown() -> None:
    rows = one_request(1, 10, 4)
    gap = trtstats.IterationTotals()
    engines.token_counters("trtllm", json.dumps(rows[:1]), gap)
    assert engines.token_counters("trtllm", json.dumps(rows[3:]), gap) == {
        "prompt_tokens": None, "generation_tokens": None}
    assert gap.broken == ["iterations 2..3 were not reported (the server's iteration buffer "
                          "overflowed)"]
    bad = trtstats.IterationTotals()
    row = {**rows[0], "inflightBatchingStats": {"numCtxTokens": 10}}
    assert engines.token_counters("trtllm", json.dumps([row]), bad)["prompt_tokens"] is None
    assert bad.broken == ["iteration 0: no whole-number numGenRequests"]
    assert trtstats.parse("<html>")[1][0].startswith("not JSON")
    assert trtstats.parse('{"iter": 1}') == ([], ['not a JSON list of iterations: \'{"iter": 1}\''])


def test_sglang_and_trtllm_serve_on_nvidia_gpus_only() -> None:
    for asked in ("sglang_server", "trtllm_server"):
        with pytest.raises(CaseError, match=f"engine {asked} runs on vendor nvidia only "
                                            "\\(device cuda\\) and this run's device is cpu"):
            choice.choose(asked, None, "/py", "cpu")
        assert choice.choose(asked, None, "/py", "cuda").engine == asked.split("_")[0]


def test_the_load_generator_runs_in_the_python_the_image_names(monkeypatch) -> None:
    monkeypatch.setenv(ENV_PYTHON, "/opt/chipperf-loadgen/bin/python")
    assert generator_argv()[0] == "/opt/chipperf-loadgen/bin/python"
    assert generator_argv("/other")[0] == "/other"
    monkeypatch.delenv(ENV_PYTHON)
    assert generator_argv()[0] != "/opt/chipperf-loadgen/bin/python"
