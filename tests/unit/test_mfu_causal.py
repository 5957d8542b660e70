"""MFU with a causal model's attention halved (issue 44, "MFU convention said"): FINISHED's
attention pair checked, ``mfu_causal`` computed beside ``mfu`` and shown by every output.

The worked example: 1000 samples/s (SynthCase's rounds) x 624 GFLOP per sample over 4 A100s
(312 TFLOP/s bf16 each, 1,248 together) is 624 / 1,248 = 50 % MFU. 124.8 GFLOP of the 624 are
attention; halved, 62.4 leave 561.6 GFLOP per sample: 561.6 / 1,248 = 45 %.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from synthetic_results import SynthCase, write_run

from chipperf.commands.selftest_engine import figures
from chipperf.commands.selftest_verdict import table
from chipperf.results.compute.mfu import causal_mfu
from chipperf.results.compute.plausible import Where, checked_round
from chipperf.results.compute.schema import RoundResult
from chipperf.results.entry import report_main
from chipperf.results.read.collect import collect
from chipperf.results.render.compare import compare, comparison_markdown
from chipperf.results.report import summarize
from chipperf.store import db
from chipperf.store.ingest import ingest_dir
from chipperf.store.leaderboard import board, board_html
from chipperf_runtime.perflog import finished_problems
from chipperf_runtime.perflog_schema import attention_problems

PER_SAMPLE, ATTENTION = 624e9, 124.8e9
CAUSAL = SynthCase(flops_per_unit=PER_SAMPLE, attention=(ATTENTION, True))


def test_the_causal_figure_halves_the_attention_part_only() -> None:
    fields = {"flops_per_unit": 1000.0, "attention_flops_per_unit": 200.0,
              "causal_attention": True}
    assert causal_mfu(fields, 0.40) == (pytest.approx(0.40 * 900 / 1000), "")
    assert causal_mfu({**fields, "causal_attention": False}, 0.40) == (0.40, "")
    assert causal_mfu({**fields, "attention_flops_per_unit": 0.0}, 0.40) == (0.40, "")
    value, why = causal_mfu({"flops_per_unit": 1000.0}, 0.40)
    assert value is None and why.startswith("FINISHED has no attention_flops_per_unit")
    assert causal_mfu(fields, None) == (None, "no MFU to halve the attention of (see mfu)")


def test_a_causal_case_s_round_carries_both_figures(tmp_path: Path) -> None:
    case = collect(write_run(tmp_path, [CAUSAL])).summary.cases[0]
    first = case.rounds[0]
    assert first.mfu == pytest.approx(0.50)
    assert first.mfu_causal == pytest.approx(0.45)
    assert (first.attention_flops_per_unit, first.causal_attention) == (ATTENTION, True)
    assert case.aggregate["mfu_causal"].mean == pytest.approx(0.45 * (1000 + 1010 + 990) / 3000)


def test_an_encoder_s_causal_figure_is_its_whole_one(tmp_path: Path) -> None:
    encoder = SynthCase(flops_per_unit=PER_SAMPLE, attention=(ATTENTION, False))
    first = collect(write_run(tmp_path, [encoder])).summary.cases[0].rounds[0]
    assert first.mfu_causal == first.mfu == pytest.approx(0.50)


def test_a_case_that_does_not_say_its_attention_has_no_causal_figure(tmp_path: Path) -> None:
    first = collect(write_run(tmp_path, [SynthCase()])).summary.cases[0].rounds[0]
    assert first.mfu is not None and first.mfu_causal is None
    assert "does not say how much of flops_per_unit is attention" in first.reasons["mfu_causal"]


def test_a_causal_figure_above_100_percent_is_an_error() -> None:
    result = RoundResult(number=1, mfu=1.2, mfu_causal=1.1, peak_flops_per_chip=312e12,
                         mfu_dtype="bf16", flops_per_unit=1e12, work_unit="samples")
    checked = checked_round(result, Where("c/round1", "nvidia", "A100", "training"), {})
    assert checked.mfu_causal is None and checked.mfu is None
    assert checked.reasons["mfu_causal"].startswith(
        "ERROR: MFU, causal attention halved: MFU 110.00 % is above 100 %")


def test_the_report_shows_the_causal_figure_beside_mfu(tmp_path: Path, capsys) -> None:
    run = write_run(tmp_path, [CAUSAL])
    assert report_main(run) == 0
    console = capsys.readouterr().out
    assert "MFU, causal attn halved" in console
    md = (run / "summary.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| case "))
    cells = [c.strip() for c in header.split("|")]
    assert cells[cells.index("MFU") + 1] == "MFU, causal attn halved"
    assert "Attention: 1.248e+11 of the 6.24e+11 FLOPs per sample (20.0 %), causal: halved" in md
    assert "MFU with causal attention halved counts half of them" in md
    assert "| MFU (causal attention halved) |" in md          # the round and statistics tables
    html = (run / "report.html").read_text()
    assert "MFU with causal attention halved counts half of them" in html
    assert "Attention: 1.248e+11 of the 6.24e+11 FLOPs per sample" in html
    rows = list(csv.DictReader(io.StringIO((run / "summary.csv").read_text())))
    assert float(rows[0]["mfu_causal"]) == pytest.approx(0.45)
    assert rows[0]["causal_attention"] == "True"
    rounds = json.loads((run / "summary.json").read_text())["cases"][0]["rounds"]
    assert rounds[0]["mfu_causal"] == pytest.approx(0.45)


def test_compare_has_a_causal_row(tmp_path: Path) -> None:
    runs = [summarize(write_run(tmp_path, [CAUSAL], run_id=f"run2024010{i}000000"))
            for i in (1, 2)]
    row = next(r for r in compare(runs, baseline=0).rows if r.figure == "mfu_causal")
    assert [c.stat.mean for c in row.cells] == pytest.approx([0.45, 0.45])
    assert "MFU counts attention FLOPs whole" in comparison_markdown(compare(runs, baseline=0))


def test_the_leaderboard_shows_the_causal_figure_beside_mfu(tmp_path: Path) -> None:
    engine = db.open_store(f"sqlite:///{tmp_path / 'store.sqlite'}")
    ingest_dir(engine, write_run(tmp_path, [CAUSAL]))
    row, = board(engine)[0].rows
    assert row.figures["mfu_causal"] == pytest.approx(0.45, rel=0.01)
    page = board_html(board(engine), lambda run: None)
    assert "<th>MFU</th><th>MFU, causal attn halved</th>" in page and "<td>45.0%</td>" in page
    assert "MFU counts attention FLOPs whole" in page


def test_selftest_shows_the_causal_share_beside_the_whole_one() -> None:
    first = {"throughput": {"raw": 5000.0, "unit": "tokens/s"}, "mfu": 0.40,
             "mfu_causal": 0.36}
    row, = figures("gpt2", "gpt2", first)
    assert (row.share_of_spec, row.share_causal) == (0.40, 0.36)
    head, line = table([row])
    assert head.split()[-3:] == ["spec", "causal", "verdict"]
    assert line.split()[-5:] == ["40.0", "%", "36.0", "%", "ok"]


def test_finished_s_attention_pair_is_checked() -> None:
    good = {"flops_per_unit": 100.0, "attention_flops_per_unit": 20.0, "causal_attention": True}
    assert attention_problems(good) == [] and attention_problems({"flops_per_unit": 1.0}) == []
    assert attention_problems({**good, "causal_attention": "yes"}) == [
        "FINISHED 'causal_attention' has type str: it must be true or false"]
    assert attention_problems({**good, "attention_flops_per_unit": -1}) == [
        "FINISHED 'attention_flops_per_unit' is -1: it must be a number >= 0 (the attention "
        "part of flops_per_unit)"]
    assert attention_problems({**good, "attention_flops_per_unit": 120.0}) == [
        "FINISHED 'attention_flops_per_unit' 120 is above flops_per_unit 100: the attention "
        "part cannot exceed the whole"]
    lone = {"flops_per_unit": 100.0, "attention_flops_per_unit": 20.0}
    assert attention_problems(lone) == [
        "FINISHED has 'attention_flops_per_unit' without 'causal_attention': a case that "
        "counts its attention says both"]
    assert attention_problems(lone)[0] in finished_problems(lone)
