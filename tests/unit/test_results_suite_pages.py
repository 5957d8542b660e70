"""Each suite's outputs (console, summary.md, summary.csv, report.html) show its own figures
(docs/results.md "A page per suite"): base/ its value, unit, method, share of spec and ratio
to the bare torch loop; operation/ its correctness, latency and figures per shape; inference
whole and core throughput; and none of them a training word."""

from __future__ import annotations

import csv
import io
import re

import pytest
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results.entry import report_main
from chipperf.results.report import write_reports

# Words of a training page that must not appear on another suite's (PerfLog's raw event
# names stay in the rank logs: they are the protocol).
TRAINING_WORDS = re.compile(r"train_time_s|TRAIN_START|TRAIN_END|converged|final metric|"
                            r"train time|dataset: tmp|\(no eval\)|training loss", re.IGNORECASE)
OUTPUTS = ("summary.md", "summary.csv", "report.html")


def _run(tmp_path, suite: str, case: SynthCase):
    run = write_run(tmp_path, [case], suite=suite)
    write_reports(run)
    return run


def _outputs(run, capsys) -> dict[str, str]:
    assert report_main(run) == 0
    texts = {name: (run / name).read_text() for name in OUTPUTS}
    texts["console"] = capsys.readouterr().out
    return texts


@pytest.mark.parametrize("suite,case", [
    ("base", SynthCase(model="computation-BF16", bench=True, nnodes=1, nproc=1, rounds=(SynthRound(600.0),))),
    ("operation", SynthCase(model="mm-BF16-nativetorch", bench=True, nnodes=1, nproc=1,
                            rounds=(SynthRound(500.0, latency_ms=0.5),))),
    ("inference", SynthCase(nnodes=1, nproc=1, rounds=(SynthRound(2000.0),))),
])
def test_no_training_words_outside_training(tmp_path, capsys, suite, case):
    texts = _outputs(_run(tmp_path, suite, case), capsys)
    for name, text in texts.items():
        found = sorted({m.group(0) for m in TRAINING_WORDS.finditer(text)})
        assert found == [], f"{suite} {name}: {found}"


def test_base_page_has_value_unit_method_spec_and_bare_loop(tmp_path, capsys):
    case = SynthCase(model="computation-BF16", bench=True, nnodes=1, nproc=1, rounds=(SynthRound(600.0),))
    texts = _outputs(_run(tmp_path, "base", case), capsys)
    md = texts["summary.md"]
    assert "| value (TFLOP/s) | share of spec peak | ratio to bare torch loop |" in md
    assert "| 1 | succeeded | yes | 600.0 | 60.67% | 0.98 |" in md
    for row in ("| M | 4096 |", "| warmup | 3 |", "| iterations | 500 |",
                "| timing | wall clock over the whole loop |",
                "| bare torch loop beside it | 612.2 TFLOP/s: torch matmul 4096^3, bare loop |"):
        assert row in md, row
    assert "FLOP/s |" not in md.replace("TFLOP/s", "")          # one unit: TFLOP/s
    assert "e+" not in md.split("### Not measured")[0]           # no 9.594e+10 beside TFLOP/s
    html = texts["report.html"]
    assert "<caption>Method</caption>" in html and "<th>what</th>" in html
    assert "<th>ratio to bare torch loop</th>" in html and "<td>0.98</td>" in html
    row = next(csv.DictReader(io.StringIO(texts["summary.csv"])))
    assert row["value"] == "600.0" and row["unit"] == "TFLOP/s" and row["correct"] == "True"
    assert float(row["bare_ratio"]) == pytest.approx(0.98) and "throughput_raw" not in row
    assert row["numpy_ratio"] == ""                       # an accelerator: no numpy beside it
    assert "- ratio to numpy's GEMM: every round: numpy runs on the host CPU, not on this " \
        "device" in md and "| ratio to numpy's GEMM |" not in md


def test_base_page_on_a_cpu_has_numpy_s_gemm_beside_it(tmp_path, capsys):
    case = SynthCase(model="computation-FP32", vendor="cpu", dtype="fp32", bench=True, nnodes=1,
                     nproc=1, rounds=(SynthRound(1.1),))
    texts = _outputs(_run(tmp_path, "base", case), capsys)
    md = texts["summary.md"]
    assert "| value (TFLOP/s) | share of spec peak | ratio to bare torch loop | ratio to " \
           "numpy's GEMM |" in md
    assert "| numpy's GEMM beside it | 1 TFLOP/s: numpy matmul 4096^3, 2 threads |" in md
    assert "<th>ratio to numpy&#x27;s GEMM</th>" in texts["report.html"]
    row = next(csv.DictReader(io.StringIO(texts["summary.csv"])))
    assert float(row["numpy_ratio"]) == pytest.approx(1.1)


def test_operation_page_has_correctness_latency_and_shapes(tmp_path, capsys):
    case = SynthCase(model="mm-BF16-nativetorch", bench=True, nnodes=1, nproc=1,
                     rounds=(SynthRound(500.0, latency_ms=0.5, queries=40),))
    md = _outputs(_run(tmp_path, "operation", case), capsys)["summary.md"]
    assert "| shape | calls | p50 (ms) | p90 (ms) | p99 (ms) | value | correct | max \\|error\\| |" \
        in md
    assert "| 1024x1024x1024 | 40 | 0.5 | 0.625 | 1 | 125.0 TFLOP/s | yes | 1e-05 |" in md
    assert "| 4096x4096x4096 | 40 | 0.5 | 0.625 | 1 | 500.0 TFLOP/s | yes | 1e-05 |" in md
    assert "| round | status | correct | value (TFLOP/s) | share of spec peak | latency p50 " \
           "(ms) | latency p90 (ms) | latency p99 (ms) |" in md


def test_inference_names_whole_and_core_everywhere(tmp_path, capsys):
    texts = _outputs(_run(tmp_path, "inference", SynthCase(nnodes=1, nproc=1)), capsys)
    for name in ("console", "summary.md", "report.html"):
        assert "whole throughput (with input pipeline)" in texts[name], name
        assert "core throughput (compute only)" in texts[name], name
    assert "host-side input pipeline" in texts["summary.md"]
    header = texts["summary.csv"].splitlines()[0].split(",")
    assert {"throughput_whole", "throughput_core", "window_s", "passed"} <= set(header)


def test_pages_open_without_an_empty_header_row(tmp_path):
    run = _run(tmp_path, "training", SynthCase(nnodes=1, nproc=1))
    assert "<th></th>" not in (run / "report.html").read_text()
    assert "|  |  |" not in (run / "summary.md").read_text()
