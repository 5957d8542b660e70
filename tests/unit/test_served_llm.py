"""The served-LLM sweep's pure parts: /metrics parsing, vLLM's result JSON, the points, the
counter check (the server processes themselves: tests/runtime/test_served_llm_server.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chipperf.run.verdict import served_failures
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm.served import loadgen, promtext, record, sweep
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


def test_bench_args_are_vllm_bench_serves() -> None:
    argv = loadgen.bench_args(PointSpec(CHAT, 4, 8, 1), "http://127.0.0.1:8000", Path("/m"),
                              Path("/out/chat_c4.json"))
    assert argv[:2] == ["--backend", "vllm"]
    pairs = dict(zip(argv, argv[1:]))
    assert pairs["--max-concurrency"] == "4" and pairs["--num-prompts"] == "8"
    assert pairs["--random-input-len"] == "1024" and pairs["--result-filename"] == "chat_c4.json"
    assert "--ignore-eos" in argv and pairs["--metric-percentiles"] == "50,90,99"
    assert "--save-detailed" in argv   # each request's record kept beside the point's figures


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


def served_finished(points: list[dict]) -> dict:
    """A served FINISHED as case.finished_record writes it, around given points."""
    sweep_result = {"points": points, "planned": 3, "ended": "server died", "engine": "vllm_server",
                    "chips": 1, "server": {"ready_s": 61.5, "shutdown_s": 3.055e-06},
                    "load_generator": {"starts": [
                        {"why": "sweep start", "ready_s": 58.25, "import_s": 55.0,
                         "killed": "took longer than 120 s to run the point", "exit_code": -9},
                        {"why": "the previous generator was stopped", "ready_s": 50.0,
                         "import_s": 49.0, "exit_code": 0}]},
                    "shapes": [{"name": "chat", "input_tokens": 16, "output_tokens": 8,
                                "inferencemax_tokens": [1024, 1024], "reduced": True}]}
    config = {"vocab_size": 512, "hidden_size": 64, "intermediate_size": 128, "num_layers": 2,
              "num_heads": 4, "num_kv_heads": 2}
    return record.finished_record(sweep_result, config, 99_000, "fp32", 10.0, 0.0)


def measured_point(concurrency: int, tpot_ms: float, rate: float) -> dict:
    point = PointSpec(Shape("chat", 16, 8), concurrency, 2 * concurrency, 1)
    figures = loadgen.point_figures(result_json(p50_tpot_ms=tpot_ms, output_throughput=rate,
                                                completed=2 * concurrency,
                                                total_input_tokens=32 * concurrency,
                                                total_output_tokens=16 * concurrency),
                                    point, chips=1)
    counted = {"loadgen": 0, "server": 0, "agree": True}
    return {**figures, "point": f"chat_c{concurrency}", "status": "succeeded",
            "server_counters": {"prompt_tokens": counted, "generation_tokens": counted}}


def test_a_served_finished_renders_its_curve_table_and_notes(tmp_path: Path) -> None:
    from synthetic_results import write_run
    from test_results_inference import edit_finished, inference_case, rank0

    from chipperf.results.report import write_reports
    from chipperf_runtime.perflog import finished_problems

    died = {"point": "chat_c4", "shape": "chat", "concurrency": 4, "status": "failed",
            "server_died": True, "why": "serving engine 'vllm' exited (code -9) during this "
                                        "point; its log (server.log) ends:\n..."}
    finished = served_finished([measured_point(1, 10.0, 90.0), measured_point(2, 12.5, 150.0),
                                died])
    assert finished["converged"] is False and finished["throughput"]["raw"] == 150.0
    assert finished["metric"]["value"] == 2 / 3 and finished["latency_ms"]["count"] == 2
    assert finished_problems(finished, "inference") == []     # reference: "not measured"
    run = write_run(tmp_path, [inference_case(rounds=inference_case().rounds[:1])],
                    suite="inference")
    edit_finished(rank0(run), lambda v: (v.clear(), v.update(finished)))
    write_reports(run)
    html, md = (run / "report.html").read_text(), (run / "summary.md").read_text()
    assert "Round 1: throughput vs interactivity" in html and "<polyline" in html
    assert "| 1 | chat_c2 | succeeded | 4 | 0 | 150 | 80 |" in md      # 1000 / 12.5 ms
    assert "| 1 | chat_c4 | failed (why: below) | — |" in md    # the table keeps its width
    assert "Round 1, point chat_c4: failed: serving engine 'vllm' exited (code -9) during this " \
           "point; its log (server.log)." in md
    assert "healthy 61.5 s after launch, shut down in < 0.01 s; shapes chat 16/8 (reduced; " \
           "InferenceMAX: 1024/1024); 3 of 3 points run " \
           "(server died)" in md
    assert "; load generator: 2 starts (1 killed), the first ready 58.25 s after launch (vLLM " \
           "imported in 55 s)" in md


def test_a_sweep_ends_at_a_dead_server_or_a_generator_that_cannot_start() -> None:
    assert sweep.ended([{"status": "succeeded"}]) == "all points run"
    assert sweep.ended([{"status": "failed", "server_died": True}]) == "server died"
    assert sweep.ended([{"status": "failed", "generator_start_failed": True}]) == \
        "load generator did not start"


def test_the_transformers_engines_counters_are_read_where_vllms_are_absent() -> None:
    text = ('chipperf:prompt_tokens_total{model_name="/m"} 30.0\n'
            'chipperf:generation_tokens_total{model_name="/m"} 12.0\n')
    assert promtext.token_counters(text) == {"prompt_tokens": 30.0, "generation_tokens": 12.0}
    assert promtext.token_counters(METRICS + text)["prompt_tokens"] == 128.0   # vLLM's first


def test_the_transformers_server_argv_has_no_vllm_only_arguments() -> None:
    from chipperf_runtime.inference.llm.served.server import ServerSpec

    argv = ServerSpec("transformers", Path("/m"), 8100, "bf16", seed=3, python="/py").argv()
    assert argv == ["/py", "-m", "chipperf_runtime.inference.llm.served.tfserver", "--model",
                    "/m", "--host", "127.0.0.1", "--port", "8100", "--dtype", "bfloat16",
                    "--seed", "3"]
    vllm = ServerSpec("vllm", Path("/m"), 8100, python="/py", extra_args=("--enforce-eager",))
    assert "--max-num-seqs" in vllm.argv() and vllm.argv()[-1] == "--enforce-eager"


@pytest.mark.parametrize("machine, flags, said", [
    ("x86_64", {"sse4_2", "avx"}, "has no AVX2, and vLLM's CPU build has kernels for AVX2 and "
                                  "AVX512 only"),
    ("x86_64", {"avx2"}, None), ("x86_64", {"avx2", "avx512f"}, None), ("aarch64", set(), None)])
def test_a_processor_vllm_cannot_run_on_is_named(machine: str, flags: set, said: str) -> None:
    from chipperf_runtime.inference.llm.served.choice import processor_problem

    problem = processor_problem(machine, flags)
    assert problem == said if said is None else said in str(problem)


def test_the_served_keys_report_every_problem_at_once() -> None:
    from chipperf_runtime.inference import config as configuration
    from chipperf_runtime.inference.llm.served.settings import ServedSettings

    folder = Path(__file__).resolve().parents[2] / "inference/configs/llama3_8b"
    good = configuration.load(folder, "cpu_configuration.yaml", [
        "serve_fallback=transformers", "serve_slo_ttft_ms=500", "serve_request_rates=[0.5, 2]",
        "serve_chip_hour_price=2.5", "serve_engine_env={TORCHDYNAMO_DISABLE: 1}"])
    assert ServedSettings.from_config(good).goodput() == ("ttft:500",)
    assert ServedSettings.from_config(good).engine_env() == (("TORCHDYNAMO_DISABLE", "1"),)
    bad = configuration.load(folder, "cpu_configuration.yaml", [
        "serve_fallback=sglang", "serve_slo_tpot_ms=0", "serve_request_rates=[1, -2]",
        "serve_check_prompts=-1", "serve_accuracy_when=during_sweep",
        "serve_engine_env={TORCHDYNAMO_DISABLE: [1]}"])
    with pytest.raises(CaseError) as caught:
        ServedSettings.from_config(bad)
    assert str(caught.value).splitlines()[1:] == [
        "  serve_request_rates: must be a list of requests/s > 0, got [1, -2]",
        "  serve_slo_tpot_ms: must be null or a number > 0, got 0",
        "  serve_check_prompts: must be a whole number >= 0, got -1",
        "  serve_engine_env: must be a mapping of environment variable names to "
        "values (strings or numbers), got {'TORCHDYNAMO_DISABLE': (1,)}",
        "  serve_accuracy_when: must be one of after_sweep, before_sweep (when the accuracy "
        "guard and lm-eval ask the server), got 'during_sweep'",
        "  serve_fallback: must be null or one of transformers, got 'sglang'"]


def test_fixed_rates_follow_each_shapes_concurrencies() -> None:
    points = sweep.plan_points([CHAT], [2, 1], 3, seed=7, rates=sweep.Rates((4.0, 0.5), 10),
                               goodput=("ttft:500",))
    assert [(p.name, p.prompts) for p in points] == [
        ("chat_c1", 3), ("chat_c2", 6), ("chat_r0.5", 10), ("chat_r4", 10)]
    argv = loadgen.bench_args(points[2], "http://h:1", Path("/m"), Path("/o/r.json"))
    pairs = dict(zip(argv, argv[1:]))
    assert pairs["--request-rate"] == "0.5" and "--max-concurrency" not in argv
    assert pairs["--goodput"] == "ttft:500"
    assert "--goodput" not in loadgen.bench_args(PointSpec(CHAT, 1, 1, 1), "http://h:1",
                                                 Path("/m"), Path("/o/r.json"))


def test_goodput_is_requests_per_s_within_the_slo() -> None:
    point = PointSpec(CHAT, 4, 8, 1, goodput=("ttft:500", "tpot:50"))
    figures = loadgen.point_figures(result_json(request_goodput=3.0), point, chips=1)
    assert figures["goodput_requests_per_s"] == 3.0 and figures["slo_met_share"] == 0.75
    assert "goodput_requests_per_s" not in loadgen.point_figures(
        result_json(), PointSpec(CHAT, 4, 8, 1), chips=1)


def test_an_slo_no_point_meets_is_said() -> None:
    points = [{"point": "chat_c1", "status": "succeeded", "slo_met_share": 0.5,
               "goodput_requests_per_s": 1.5},
              {"point": "chat_c2", "status": "succeeded", "slo_met_share": 0.0,
               "goodput_requests_per_s": 0.0}]
    slo = record.slo_record(points, ("ttft:20", "tpot:5"))
    assert slo is not None and slo["points_meeting"] == []
    assert slo["note"].startswith("no point meets the SLO (ttft:20, tpot:5 ms)")
    # the points were measured: an SLO none meets does not fail the round
    assert served_failures({"serving": {"sweep": {"points": points, "planned": 2,
                                                  "slo": slo}}}) == ""
    points[0]["slo_met_share"] = 1.0
    met = record.slo_record(points, ("ttft:20",))
    assert met is not None and met["points_meeting"] == ["chat_c1"] and "note" not in met
    assert record.slo_record(points, ()) is None


def test_cost_per_million_tokens_is_the_users_price_over_the_rate() -> None:
    points = [{"output_tokens_per_s_per_chip": 1000.0}, {"output_tokens_per_s_per_chip": None}]
    record.add_cost(points, 3.6, "EUR")
    assert points[0]["cost_per_million_output_tokens"] == pytest.approx(1.0)   # 3.6/3600/1000*1e6
    assert points[1]["cost_per_million_output_tokens"] is None
    untouched = [{"output_tokens_per_s_per_chip": 1000.0}]
    record.add_cost(untouched, None, "USD")
    assert "cost_per_million_output_tokens" not in untouched[0]


def test_the_accuracy_guard_counts_agreeing_tokens_and_marks_a_disagreement() -> None:
    from chipperf_runtime.inference.llm.served import guard

    spec = guard.GuardSpec(3, 5, 4, vocab_size=512, seed=9)
    assert spec.prompt_ids() == spec.prompt_ids() and len(spec.prompt_ids()) == 3
    assert all(3 <= t < 512 for p in spec.prompt_ids() for t in p)
    same = guard.agreement([[1, 2, 3, 4]], [[1, 2, 3, 4]], 0.99)
    assert same["token_agreement"] == 1.0 and same["agree"] is True
    off = guard.agreement([[1, 2, 9, 4], [5, 6]], [[1, 2, 3, 4], [5, 6, 7, 8]], 0.99)
    assert off["token_agreement"] == 5 / 8 and off["prefix_agreement"] == (0.5 + 0.5) / 2
    assert off["agree"] is False
    result = {"points": [], "planned": 0, "accuracy_guard": off}
    assert record.guard_passed(result) is False
    assert record.guard_passed({"accuracy_guard": {"agree": None, "note": "not run"}}) is True


def test_the_report_says_which_engine_served_the_slo_and_the_cost() -> None:
    from chipperf.results.render import servecurve

    sweep_result = {"points": [], "planned": 1, "ended": "all points run",
                    "served_by": {"engine": "transformers", "asked": "vllm_server",
                                  "why": "vLLM cannot run here: no AVX2"},
                    "slo": {"limits": ["ttft:20"], "points_meeting": [],
                            "note": "no point meets the SLO (ttft:20 ms)"}}
    assert servecurve._served_by(sweep_result) == ("; served by transformers (vLLM cannot run "
                                                   "here: no AVX2)")
    assert servecurve._slo(sweep_result) == "; SLO: no point meets the SLO (ttft:20 ms)"
    row = servecurve._row(1, {"point": "chat_c1", "status": "succeeded",
                              "cost_per_million_output_tokens": 2.5, "cost_currency": "EUR",
                              "goodput_requests_per_s": 1.25})
    assert "2.5 EUR" in row and "1.25" in row


def test_the_plan_refuses_a_concurrency_of_0_before_anything_starts() -> None:
    from chipperf_runtime.inference.config import read_layers

    folder = Path(__file__).resolve().parents[2] / "inference/configs/llama3_8b"
    _, _, problems = read_layers(folder, "cpu_configuration.yaml", [
        'engine="vllm_server"', "serve_concurrency=[0, 2]"], vendor_engines=True)
    assert problems == ["serve_concurrency: every value must be a whole number >= 1, got "
                        "[0, 2]: list the numbers of concurrent users to sweep, e.g. [1, 2, 4]"]
    _, _, fine = read_layers(folder, "cpu_configuration.yaml", [
        'engine="transformers_server"'], vendor_engines=True)
    _, _, not_served = read_layers(folder, "cpu_configuration.yaml", [
        "serve_concurrency=[0]"], vendor_engines=True)
    assert fine == [] and not_served == []


def monitor_lines(source: str, values: list[tuple[int, dict]]) -> str:
    import json

    return "".join(json.dumps({"ts_ms": t, "source": source, **v}) + "\n" for t, v in values)


def test_tokens_per_joule_from_the_chips_energy_counter_first(tmp_path: Path) -> None:
    from chipperf_runtime.inference.llm.served import energy

    (tmp_path / "acme_monitor.log").write_text(monitor_lines("acme", [
        (1000, {"info": {}}),
        (1000, {"devices": [{"index": 0, "energy_mj": 0.0}, {"index": 1, "energy_mj": 0.0}]}),
        (3000, {"devices": [{"index": 0, "energy_mj": 200e3}, {"index": 1, "energy_mj": 200e3}]})]))
    (tmp_path / "pwr_monitor.log").write_text(monitor_lines("ipmi", [(0, {"power_w": 500.0}),
                                                                      (4000, {"power_w": 500.0})]))
    points = [{"status": "succeeded", "start_unix_s": 1.5, "end_unix_s": 2.5,
               "total_output_tokens": 400},
              {"status": "succeeded", "start_unix_s": 2.5, "end_unix_s": 3.5,
               "total_output_tokens": 10}, {"status": "failed"}]
    energy.add_point_energy(points, tmp_path, "acme")
    assert points[0]["energy_j"] == pytest.approx(200.0)     # 2 chips x 100 J over 1 s of 2
    assert points[0]["output_tokens_per_joule"] == pytest.approx(2.0)
    assert points[0]["energy_source"] == "chips (acme_monitor.log, energy counter)"
    assert "do not cover the point's window" in points[1]["energy_absent"]
    assert "energy_j" not in points[2] and "energy_absent" not in points[2]


def test_wall_power_is_integrated_where_no_counter_exists(tmp_path: Path) -> None:
    from chipperf_runtime.inference.llm.served import energy

    (tmp_path / "pwr_monitor.log").write_text(monitor_lines("ipmi", [
        (0, {"power_w": 100.0}), (1000, {"power_w": 300.0}), (2000, {"power_w": 300.0})]))
    points = [{"status": "succeeded", "start_unix_s": 0.5, "end_unix_s": 1.5,
               "total_output_tokens": 250}]
    energy.add_point_energy(points, tmp_path, "cpu")
    assert points[0]["energy_j"] == pytest.approx(0.5 * (200 + 300) / 2 + 0.5 * 300)
    assert points[0]["energy_source"] == "node wall power (IPMI)"
    bare = [{"status": "succeeded", "start_unix_s": 0.5, "end_unix_s": 1.5,
             "total_output_tokens": 1}]
    energy.add_point_energy(bare, tmp_path / "nowhere", "cpu")
    assert bare[0]["energy_absent"].startswith("no power or energy samples in")


def test_a_points_load_window_ends_when_its_result_was_written(tmp_path: Path) -> None:
    import os

    result = tmp_path / "chat_c1.json"
    result.write_text("{}")
    os.utime(result, (1000.0, 1000.0))
    assert sweep.load_window(result, 2.5) == {"start_unix_s": 997.5, "end_unix_s": 1000.0}
    assert sweep.load_window(result, None) == {}


def test_compare_draws_every_runs_served_curve_on_one_chart() -> None:
    from chipperf.results.compute.schema import CaseResult, RoundResult, RunSummary
    from chipperf.results.render import compare_html, servecurve

    def case(rate: float, rounds: int = 1) -> CaseResult:
        points = [{"point": f"chat_c{c}", "shape": "chat", "status": "succeeded",
                   "tokens_per_s_per_user": 100.0 / c, "output_tokens_per_s_per_chip": rate * c}
                  for c in (1, 2)]
        points.append({"point": "chat_c4", "shape": "chat", "status": "failed"})
        return CaseResult(dir_name="llama3_8b-pytorch_vllm_0.32-xeon-1x1", model="llama3_8b",
                          framework="pytorch_vllm_0.32",
                          rounds=[RoundResult(number=n, serving={"sweep": {"points": points}})
                                  for n in range(1, rounds + 1)])

    chart = servecurve.runs_curve_svg("llama3_8b", servecurve.sweep_runs(
        [("#1 cpu/xeon", case(10.0)), ("#2 cpu/epyc", case(30.0, rounds=2)), ("#3 none", None)]))
    assert "llama3_8b: throughput vs interactivity" in chart
    labels = re.findall(r"<title>([^<]*)</title></polyline>", chart)
    assert labels == ["#1 cpu/xeon chat", "#2 cpu/epyc round 1 chat", "#2 cpu/epyc round 2 chat"]
    assert servecurve.runs_curve_svg("x", servecurve.sweep_runs(
        [("#1", CaseResult(dir_name="d"))])) == ""
    runs = [RunSummary(run_id=f"run{i}", cases=(case(10.0 * i),)) for i in (1, 2)]
    match = compare_html.match_key(runs[0].cases[0], None)
    (section,) = compare_html._served_curve(match, runs, ["#1 a", "#2 b"])
    assert section.count("<polyline") == 2 and f"{match}: served sweeps" in section
