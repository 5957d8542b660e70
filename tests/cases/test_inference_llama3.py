"""The llama3_8b LLM serving case end to end on this machine at CI size (a 2-layer llama of
hidden 64 from transformers' LlamaConfig, random weights; prompts cut from the licence texts
Debian ships, tokenised by a byte-level BPE trained at prepare time): the three scenarios and
their metrics (run by MLPerf LoadGen), accuracy against fp32 eager, a rate whose latency bound
LoadGen finds unmet, and bad inputs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inferrun import BENCH, CONFIGS, argv, captured_events, cpu_vendor, entry_env, finished_of, run_entry

from chipperf_runtime.perflog import normalize_finished

CASE_DIR = BENCH / "llama3_8b" / "pytorch"
ENTRY = CASE_DIR / "run_inference.py"
CONFIG = CONFIGS / "llama3_8b"
LABEL = "llama3_8b:pytorch_2.13"
TEXT_SOURCE = Path("/usr/share/common-licenses")
PERCENTILE_KEYS = ("ttft_ms", "tpot_ms", "latency_ms", "request_tokens_per_s")


@pytest.fixture(autouse=True)
def _cpu_vendor_device(monkeypatch):
    cpu_vendor(monkeypatch, LABEL)


@pytest.fixture(scope="module")
def prompts_dir(tmp_path_factory) -> Path:
    assert TEXT_SOURCE.is_dir(), f"{TEXT_SOURCE} (Debian's base-files) is the CI text"
    out = tmp_path_factory.mktemp("llm-prompts")
    subprocess.run([sys.executable, str(CASE_DIR / "prepare_prompts.py"), str(TEXT_SOURCE),
                    str(out)], check=True, timeout=300, stdout=subprocess.DEVNULL)
    return out


def run_in_process(data: Path, capsys, *sets: str) -> tuple[int, list, str]:
    from chipperf_runtime.inference.llm.runner import main

    code = main("llama3_8b", argv(CONFIG, data, data, *sets))
    return code, *captured_events(capsys)


def check_scenario(figures: dict, requests: int, at_least: bool = False) -> None:
    """``at_least``: LoadGen's server scenario issues its min_query_count, or more when its
    Poisson schedule at the target rate needs more to fill the minimum duration."""
    done = figures["requests"]
    assert (done >= requests if at_least else done == requests), (done, requests)
    assert figures["output_tokens"] >= 2 * done
    assert figures["tokens_per_s"] > 0 and figures["requests_per_s"] > 0
    for key in PERCENTILE_KEYS:
        stats = figures[key]
        assert 0 < stats["p50"] <= stats["p90"] <= stats["p99"] <= stats["max"], (key, stats)
    assert 0 <= figures["harness_share"] < 0.5


def test_case_through_its_entry_measures_all_three_scenarios(prompts_dir, tmp_path) -> None:
    proc, events = run_entry(ENTRY, argv(CONFIG, prompts_dir, tmp_path), entry_env(), timeout=600)
    f = finished_of(proc, events)
    assert normalize_finished(f)["serving"] == f["serving"]  # survives the results parser
    assert (f["engine"], f["precision"], f["work_unit"]) == ("eager", "fp32", "tokens")
    serving = f["serving"]
    check_scenario(serving["offline"], 8)
    check_scenario(serving["single_stream"], 3)
    assert f["work_done"] == serving["offline"]["output_tokens"]
    assert f["latency_ms"] == serving["single_stream"]["latency_ms"]
    # LoadGen ran each scenario and left its logs in the output directory; CI-size minimums
    assert serving["loadgen"]["results"]["single_stream"].startswith("INVALID")
    for figures in (serving["offline"], serving["single_stream"], *serving["server"]["rates"]):
        assert (tmp_path / figures["loadgen"]["logs"] / "mlperf_log_summary.txt").is_file()
    server = serving["server"]
    assert [r["target_rate"] for r in server["rates"]][0] > 0
    for rate in server["rates"]:
        if rate["meets_bound"]:
            check_scenario(rate, 6, at_least=True)
    assert server["max_rate_meeting_bound"] in [r["target_rate"] for r in server["rates"]] + [None]
    assert f["window_work"] == serving["offline"]["output_tokens"] + serving["single_stream"][
        "output_tokens"] + sum(r["output_tokens"] for r in server["rates"])
    # eager fp32 is the reference itself: identical tokens and logits
    assert f["metric"] == {**f["metric"], "name": "greedy_token_agreement", "value": 1.0}
    assert f["reference"]["max_abs_diff"] == 0.0 and f["converged"] is True
    workload = events[2].value["data"]
    assert workload["prompt_tokens"] == {"distribution": "uniform integer", "min": 8, "max": 24}
    assert workload["tokenizer_vocab_size"] == 512
    assert f["flops_per_unit"] > 2 * (events[2].value["model"]["parameters"] - 512 * 64)
    # the cpu preset is a reduced llama3_8b: FINISHED says so, with the real and full counts
    assert f["preset"]["params"] == events[2].value["model"]["parameters"]
    assert 8.02e9 < f["preset"]["full_params"] < 8.04e9
    assert f["preset"]["changes"]["num_layers"] == [2, 32]


def test_bf16_agrees_with_the_fp32_reference_within_its_bound(prompts_dir, capsys) -> None:
    code, events, err = run_in_process(prompts_dir, capsys, "precision=bf16",
                                       "server_load_fractions=[0.5]", "offline_requests=4",
                                       "single_stream_requests=1", "server_requests=2",
                                       "accuracy_requests=4")
    assert code == 0, err
    f = events[-1].value
    assert f["precision"] == "bf16" and f["reference"]["within_bound"], f["reference"]
    assert 0 < f["reference"]["max_abs_diff"] <= f["reference"]["bound"]
    assert f["metric"]["value"] >= f["metric"]["target"] and f["converged"] is True


def test_a_rate_whose_ttft_bound_loadgen_finds_unmet_ends_the_search(prompts_dir, capsys) -> None:
    code, events, err = run_in_process(prompts_dir, capsys, "server_rates=[10000, 20000]",
                                       "ttft_bound_ms=0.001", "loadgen_min_duration_ms=1",
                                       "server_requests=8")
    assert code == 0, err
    server = events[-1].value["serving"]["server"]
    (only,) = server["rates"]  # the higher rate is not tried after the first failed
    assert only["target_rate"] == 10000 and only["meets_bound"] is False
    assert only["why_not"].startswith("LoadGen: latency constraints not met (p99 TTFT")
    assert only["loadgen"]["checks"]["latency_constraints"] is False
    assert only["requests"] >= 8 and server["max_rate_meeting_bound"] is None  # LoadGen: its minimums


@pytest.mark.parametrize("sets,message", [
    (["prompt_tokens_max=200"], "plus 6 output tokens (206) is longer than the model's "
                                "context of 128 tokens (max_position)"),
    (["engine=vllm"], "engine 'vllm' runs on NVIDIA GPUs (device cuda); vendor cpu names "
                      "device cpu"),
    (["tokenizer_file=/nonexistent/tokenizer.json"],
     "tokenizer file /nonexistent/tokenizer.json not found"),
    (["engine=onnxruntime"], "engine 'onnxruntime' is unknown for LLM cases"),
    (["engine=sglang_server"], "engine sglang_server runs on vendor nvidia only (device cuda) "
                               "and this run's device is cpu"),
    (["engine=trtllm"], "engine 'trtllm' is not an engine name: TensorRT-LLM serves as engine "
                        "'trtllm_server'"),
    (["vocab_size=100"], "the tokenizer has 512 tokens, more than the model's vocab_size 100"),
    (["num_kv_heads=3"], "num_heads must be a multiple of num_kv_heads"),
    (["output_tokens_min=9"], "output_tokens_min 9 exceeds output_tokens_max 6"),
])
def test_bad_input_is_one_clear_error(prompts_dir, capsys, sets, message) -> None:
    code, events, err = run_in_process(prompts_dir, capsys, *sets)
    assert code == 2 and "TRAIN_START" not in [e.name for e in events]
    assert f"chipperf inference case {LABEL}: error:" in err and message in err, err
    assert len(err.strip().splitlines()) <= 2


def test_missing_tokenizer_in_the_data_dir_is_a_clear_error(tmp_path, capsys) -> None:
    (tmp_path / "a.txt").write_text("some text " * 100)
    code, _, err = run_in_process(tmp_path, capsys)
    assert code == 2 and f"tokenizer file {tmp_path / 'tokenizer.json'} not found" in err
    assert "prepare_prompts.py" in err
