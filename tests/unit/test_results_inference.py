"""Inference runs in the summary: latency, engine, precision, reference deviation, MFU over
the timed window, energy per item; aggregation, every renderer, compare and check."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results import check_main, report_main
from chipperf.results.compute.schema import RunSummary
from chipperf.results.read.check import check
from chipperf.results.render.compare import compare, comparison_markdown, match_key
from chipperf.results.report import summarize, write_reports
from chipperf_runtime.perflog import MARKER, finished_problems

A100_FP16 = 312e12
CASE = "resnet50-pytorch_2.13-A100-1x1"
NODE = f"{CASE}/round1/10.0.0.1_noderank0"

# FINISHED as the inference runner logged it in a real run (resnet50, onnxruntime fp32 on
# the cpu vendor; rank0.out.log of result/run20261122073012), values unchanged.
REAL_FINISHED = {
    "e2e_time_s": 76.69984112699967, "train_time_s": 17.67721738199998,
    "train_no_eval_time_s": 17.67721738199998, "pure_compute_time_s": 9.039824734999456,
    "work_unit": "items", "work_done": 64,
    "throughput": {"raw": 6.770098358442052, "pure_compute": 7.079783278564178,
                   "unit": "items/s"},
    "latency_ms": {"p50": 194.40807799946924, "p90": 292.68215100000816,
                   "p99": 1842.65290500025, "mean": 256.97286403124053,
                   "min": 53.75427499984653, "max": 1842.65290500025, "count": 32},
    "engine": "onnxruntime", "precision": "fp32", "dtype": "fp32", "device": "cpu",
    "batch_size": 8,
    "metric": {"name": "top1_agreement", "value": 1.0, "target": 0.99, "higher_is_better": True,
               "note": "random weights (no checkpoint): agreement with fp32 eager"},
    "reference": {"max_abs_diff": 3.24249267578125e-05, "mean_abs_diff": 5.530735536012798e-06,
                  "bound": 0.07023577880859375, "tolerance": 0.001,
                  "max_abs_reference": 70.23577880859375, "nonfinite_outputs": 0,
                  "within_bound": True},
    "converged": True, "flops_per_unit": 8178368512.0, "world_size": 1,
    "peak_memory_bytes": 999075840, "peak_memory_source": "process peak RSS (host)",
    "engine_build_time_s": 4.084172256999409,
    "offline": {"items": 64, "batches": 8, "passes": 1, "wall_s": 9.453333853000004,
                "compute_s": 9.039824734999456},
}


def inference_case(**kw) -> SynthCase:
    spec = dict(nnodes=1, nproc=1, seconds=10, dtype="fp16", flops_per_unit=8e9,
                energy_counter=True,
                rounds=(SynthRound(2000, latency_ms=5), SynthRound(2100, latency_ms=6),
                        SynthRound(1900, latency_ms=7, max_abs_diff=0.1)))
    spec.update(kw)
    return SynthCase(**spec)


@pytest.fixture
def run(tmp_path) -> Path:
    return write_run(tmp_path, [inference_case()], suite="inference")


def edit_finished(log: Path, change) -> None:
    """Rewrite the FINISHED line of a rank log through ``change(value)``."""
    lines = []
    for line in log.read_text().splitlines():
        if '"FINISHED"' in line:
            record = json.loads(line.split(MARKER, 1)[1])
            change(record["value"])
            line = MARKER + json.dumps(record)
        lines.append(line)
    log.write_text("\n".join(lines) + "\n")


def rank0(run: Path, node: str = NODE) -> Path:
    return run / node / "rank0.out.log"


# ---------------------------------------------------------------- schema


def test_round_carries_latency_engine_precision_and_reference(run):
    case = summarize(run).cases[0]
    assert (case.suite, case.engine, case.precision) == ("inference", "onnxruntime", "fp16")
    first, _, third = case.rounds
    assert (first.engine, first.precision) == ("onnxruntime", "fp16")
    assert (first.latency_ms.p50, first.latency_ms.p90, first.latency_ms.p99) == (5, 6.25, 10)
    assert first.latency_ms.count == 100
    assert first.reference.max_abs_diff == pytest.approx(1e-5)
    assert first.reference.bound == pytest.approx(0.05)
    assert first.reference.within_bound is True
    assert third.reference.within_bound is False and third.converged is False
    # an inference round out of bound is a result: counted, its flags say so
    assert case.counted == (1, 2, 3) and case.excluded == ()


def test_mfu_counts_offline_and_single_stream_items_over_the_window(run):
    first = summarize(run).cases[0].rounds[0]
    assert first.work_done == 16000                      # 2000 items/s x 8 s offline
    assert first.window_work == 16000 + 100              # + single-stream queries
    assert first.train_time_s == 10.0
    assert first.mfu == pytest.approx(16100 * 8e9 / 10.0 / A100_FP16)
    assert first.mfu_dtype == "fp16" and first.chips == 1


def test_energy_per_item_is_window_energy_over_window_items(run):
    first = summarize(run).cases[0].rounds[0]
    assert first.energy_j and first.accel_energy_j
    assert first.energy_per_item_j == pytest.approx(first.energy_j / 16100)
    assert first.accel_energy_per_item_j == pytest.approx(first.accel_energy_j / 16100)
    assert first.work_per_joule == pytest.approx(16100 / first.energy_j)
    assert first.cpu_energy_per_item_j is None
    assert first.reasons["cpu_energy_per_item_j"].startswith("no cpu_energy_j: 10.0.0.1")


def test_unmeasured_energy_and_missing_peak_are_absent_with_reasons(tmp_path):
    run = write_run(tmp_path, [inference_case(vendor="cpu", chip="xeon", dtype="fp32")],
                    suite="inference")
    pwr = rank0(run, "resnet50-pytorch_2.13-xeon-1x1/round1/10.0.0.1_noderank0").parent \
        / "pwr_monitor.log"
    pwr.write_text(json.dumps({"ts_ms": 1_700_000_000_000, "source": "ipmi",
                               "unavailable": "ipmitool not found on PATH"}) + "\n")
    first = summarize(run).cases[0].rounds[0]
    assert first.mfu is None
    assert first.reasons["mfu"] == "cpu vendor spec sheet has no peak FLOP/s for chip xeon"
    for name in ("energy_per_item_j", "accel_energy_per_item_j", "cpu_energy_per_item_j"):
        assert getattr(first, name) is None
    assert "ipmitool not found on PATH" in first.reasons["energy_per_item_j"]
    assert "vendor cpu has no accelerator telemetry" in first.reasons["accel_energy_per_item_j"]
    assert first.latency_ms.p99 == 10                    # the rest is still there


def test_finished_without_train_time_uses_the_perflog_window(run):
    edit_finished(rank0(run), lambda v: [v.pop("train_time_s"), v.pop("train_no_eval_time_s")])
    first = summarize(run).cases[0].rounds[0]
    assert first.train_time_s == pytest.approx((first.train_end_ms - first.train_start_ms) / 1000)
    assert first.mfu == pytest.approx(16100 * 8e9 / 10.0 / A100_FP16)
    assert "train_time_s" not in first.reasons


def test_finished_without_latency_leaves_latency_mfu_and_energy_per_item_absent(run):
    edit_finished(rank0(run), lambda v: v.pop("latency_ms"))
    case = summarize(run).cases[0]
    first = case.rounds[0]
    assert first.latency_ms is None and first.reasons["latency_ms"] == "FINISHED lacks 'latency_ms'"
    assert first.window_work is None and first.mfu is None and first.energy_per_item_j is None
    assert "latency_ms.count" in first.reasons["mfu"]
    assert "single-stream items" in first.reasons["energy_per_item_j"]
    assert case.aggregate["latency_p99_ms"].n == 2       # rounds 2 and 3 still report it


# ---------------------------------------------------------------- aggregation


def test_latency_percentiles_aggregate_over_rounds(run):
    agg = summarize(run).cases[0].aggregate
    p99 = agg["latency_p99_ms"]
    assert (p99.n, p99.mean, p99.median, p99.min, p99.max) == (3, 12.0, 12.0, 10.0, 14.0)
    assert p99.cv == pytest.approx(2.0 / 12.0)
    assert agg["latency_p50_ms"].mean == pytest.approx(6.0)
    assert agg["latency_p90_ms"].max == pytest.approx(8.75)
    assert agg["reference_max_abs_diff"].max == pytest.approx(0.1)
    assert agg["energy_per_item_j"].n == 3
    assert "throughput_no_eval" not in agg                # a training-only figure


def test_training_summaries_gain_no_inference_figures(tmp_path):
    run = write_run(tmp_path, [SynthCase(seconds=5)])
    case = summarize(run).cases[0]
    first = case.rounds[0]
    assert first.latency_ms is None and first.engine is None and "latency_ms" not in first.reasons
    assert first.window_work == first.work_done
    assert first.mfu == pytest.approx(first.work_done * 12.3e9 / 5.0 / (A100_FP16 * 4))
    assert not {"latency_p99_ms", "energy_per_item_j"} & set(case.aggregate)
    write_reports(run)
    text = (run / "summary.md").read_text()
    assert "latency" not in text and "energy/item" not in text and "train time (s)" in text


# ---------------------------------------------------------------- rendering


def test_summary_json_csv_and_markdown(run):
    write_reports(run)
    summary = RunSummary.from_dict(json.loads((run / "summary.json").read_text()))
    assert summary == summarize(run)
    assert summary.cases[0].rounds[0].latency_ms.p99 == 10
    rows = list(csv.DictReader(io.StringIO((run / "summary.csv").read_text())))
    assert [r["round"] for r in rows[:3]] == ["1", "2", "3"]
    assert float(rows[0]["latency_p99_ms"]) == 10 and rows[0]["engine"] == "onnxruntime"
    assert rows[2]["within_bound"] == "False" and rows[0]["latency_count"] == "100"
    assert float(rows[3]["latency_p99_ms"]) == pytest.approx(12.0)        # the mean row
    md = (run / "summary.md").read_text()
    assert "engine onnxruntime (fp16)" in md
    assert "| round | status | passed | within bound | whole throughput (with input pipeline), " \
           "items/s | core throughput (compute only), items/s | latency p50 (ms) | latency p90 " \
           "(ms) | latency p99 (ms) | timed window (s) |" in md
    assert "| 3 | succeeded | no | no | 1,900.0 | 2,111.1 | 7 | 8.75 | 14 | 10 |" in md
    assert "| latency p99 (ms) | 3 | 12 | 12 | 10 | 14 | 16.67% | — |" in md
    assert "- CPU energy/item, RAPL (J): every round: no cpu_energy_j: 10.0.0.1_noderank0" in md
    html = (run / "report.html").read_text()
    assert "latency p99 (ms)" in html and "engine onnxruntime (fp16)" in html


def test_console_and_readme_tables_show_latency_and_engine(run, capsys):
    assert report_main(run) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[1]
    assert header.split() == ["case", "chip", "engine", "precision", "status", "rounds",
                              "counted", "whole", "throughput", "(with", "input", "pipeline)",
                              "core", "throughput", "(compute", "only)", "p99", "latency",
                              "(ms)", "quality", "metric", "(target)", "max", "|diff|", "vs",
                              "reference", "MFU", "(whole)", "energy/item", "(J)"]
    row = out.splitlines()[3]
    assert "onnxruntime  fp16" in row and "12 ± 16.7%" in row
    assert "0.1 (2/3 within bound)" in row and "4.13% ± 5.0% (fp16)" in row
    assert report_main(run, readme_table=True) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].startswith("| model | chip | engine | precision | rounds (counted/total) | "
                               "whole throughput (with input pipeline) | core throughput "
                               "(compute only) | latency p50 (ms) | latency p90 (ms) | latency p99")
    assert "| resnet50 | A100 | onnxruntime | fp16 | 3/3 | 2,000.0 ± 5.0% items/s | " \
           "2,222.2 ± 5.0% items/s | 6 ± 16.7% | 7.5 ± 16.7% | 12 ± 16.7% |" in table[2]


# ---------------------------------------------------------------- compare


def test_compare_matches_model_framework_engine_and_precision(tmp_path):
    base = write_run(tmp_path, [inference_case()], run_id="run20240101000000",
                     suite="inference")
    other = write_run(tmp_path, [inference_case(
        framework="pytorch_2.4", chip="H100",
        rounds=(SynthRound(4000, latency_ms=2.5), SynthRound(4200, latency_ms=3)))],
        run_id="run20240102000000", suite="inference")
    eager = write_run(tmp_path, [inference_case(engine="eager")], run_id="run20240103000000",
                      suite="inference")
    summaries = [summarize(base), summarize(other), summarize(eager)]
    assert match_key(summaries[0].cases[0]) == "resnet50:pytorch onnxruntime fp16 1x1"
    comparison = compare(summaries, baseline=0)
    rows = {(r.match, r.figure): r for r in comparison.rows}
    p99 = rows[("resnet50:pytorch onnxruntime fp16 1x1", "latency_p99_ms")]
    assert p99.cells[0].stat.mean == pytest.approx(12.0)
    assert p99.cells[1].ratio == pytest.approx(5.5 / 12.0)
    assert p99.cells[2].stat is None                     # another engine never meets
    alone = rows[("resnet50:pytorch eager fp16 1x1", "throughput_raw")]
    assert [c.stat is None for c in alone.cells] == [True, True, False]
    assert ("resnet50:pytorch onnxruntime fp16 1x1", "train_time_s") not in rows
    assert "max \\|diff\\| vs reference" in comparison_markdown(comparison)


# ---------------------------------------------------------------- check


def test_a_generated_inference_run_checks_clean(run):
    assert check(run).problems == []


def test_a_real_inference_finished_checks_clean(run, capsys):
    edit_finished(rank0(run), lambda v: (v.clear(), v.update(REAL_FINISHED)))
    assert finished_problems(REAL_FINISHED, "inference") == []
    assert check_main(run) == 0
    assert capsys.readouterr().out.startswith("ok: ")
    first = summarize(run).cases[0].rounds[0]
    assert first.latency_ms.p99 == pytest.approx(1842.65290500025)
    assert first.window_work == 96 and first.reference.within_bound is True


def test_check_reports_an_inference_finished_without_latency(run):
    def damage(value):
        value.pop("latency_ms")
        for key in ("train_time_s", "train_no_eval_time_s", "pure_compute_time_s"):
            value.pop(key)                                # optional for inference
        value["reference"].pop("bound")
        value["engine"] = 3
    edit_finished(rank0(run), damage)
    problems = check(run).problems
    where = f"{NODE}/rank0.out.log:7"
    assert problems == [f"{where}: FINISHED lacks 'latency_ms'",
                        f"{where}: FINISHED 'engine' has type int",
                        f"{where}: FINISHED reference lacks 'bound'"]


def test_training_run_still_requires_training_keys(tmp_path):
    run = write_run(tmp_path, [SynthCase(nnodes=1, nproc=1, seconds=3)])
    log = run / "resnet50-pytorch_2.13-A100-1x1/round1/10.0.0.1_noderank0/rank0.out.log"
    edit_finished(log, lambda v: v.pop("train_time_s"))
    assert [p.split(": ", 1)[1] for p in check(run).problems] == [
        "FINISHED lacks 'train_time_s'"]


def test_finished_problems_per_suite():
    value = json.loads(json.dumps(REAL_FINISHED))
    value["latency_ms"] = {"p50": 1.0, "p90": "2", "count": 3.5}
    value["reference"]["within_bound"] = 1
    value["throughput"].pop("pure_compute")
    assert finished_problems(value, "inference") == [
        "FINISHED throughput lacks 'pure_compute'",
        "FINISHED latency_ms 'p90' has type str",
        "FINISHED latency_ms lacks 'p99'",
        "FINISHED latency_ms 'count' has type float",
        "FINISHED reference 'within_bound' has type int"]
    assert finished_problems(value) == []                 # training's schema: all keys there
    assert "FINISHED lacks 'latency_ms'" in finished_problems({}, "inference")
    assert "FINISHED lacks 'train_time_s'" not in finished_problems({}, "inference")


# FINISHED of the llama3_8b case (eager fp32, cpu vendor config, CI size, scenarios run by MLPerf
# LoadGen 6.0.17) as its runner logged it: `run_inference.py --extern_config_file
# cpu_configuration.yaml`, values unchanged.
LLM_FINISHED = json.loads((Path(__file__).parent / "data" / "llama3_8b_cpu_finished.json")
                          .read_text())


def test_an_llm_finished_reports_its_window_tokens_and_serving_table(run, capsys):
    edit_finished(rank0(run), lambda v: (v.clear(), v.update(LLM_FINISHED)))
    assert finished_problems(LLM_FINISHED, "inference") == []
    assert check_main(run) == 0
    capsys.readouterr()
    first = summarize(run).cases[0].rounds[0]
    assert first.work_unit == "tokens" and first.window_work == LLM_FINISHED["window_work"]
    assert first.serving == LLM_FINISHED["serving"]
    write_reports(run)
    md = (run / "summary.md").read_text()
    assert "### LLM serving (times in ms)" in md
    assert "| round | scenario | requests | tokens/s | requests/s | TTFT p50 | TTFT p90 | " \
           "TTFT p99 | TPOT p50 | TPOT p90 | TPOT p99 | meets bound | LoadGen |" in md
    offline = LLM_FINISHED["serving"]["offline"]
    assert f"| 1 | offline | 8 | {offline['tokens_per_s']:.4g} |" in md
    assert "| 1 | server @ 22.73/s | 6 |" in md
    assert "| yes | INVALID: early_stopping |" in md   # LoadGen's verdict at CI-size minimums
    assert "Round 1: bound p99 TTFT <= 5000 ms and TPOT <= 1000 ms; highest server rate " \
           "meeting it: 45.47 requests/s." in md
    assert "LLM serving (times in ms)" in (run / "report.html").read_text()


def test_energy_cells_fall_back_to_the_chips_own_counters_and_say_so() -> None:
    from chipperf.results.compute.schema import Stat
    from chipperf.results.render.console import energy_text

    chips = {"accel_energy_j": Stat(n=1, mean=4388.0), "work_per_joule_accel": Stat(n=1, mean=186.7)}
    assert energy_text(chips, "energy_j") == "4,388.0 (chips)"
    assert energy_text(chips, "work_per_joule") == "186.7 (chips)"
    assert energy_text({**chips, "energy_j": Stat(n=1, mean=9000.0)}, "energy_j") == "9,000.0"
    assert energy_text({}, "energy_per_item_j") == "—"
