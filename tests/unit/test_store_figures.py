"""Figures as the store and the leaderboard carry them (issue 42): each with its kind and
unit (base/'s memory capacity is bytes, not bytes/s), the report's statistic (operation/'s
measured value, not its FLOP/s throughput), and rows apart by run mode and by the marks of
a reduced preset or smoke data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from store_runs import case, run
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf import cli
from chipperf.results.compute.headline import HEADLINE, case_marks, figure_kind, headline
from chipperf.results.compute.schema import CaseResult, Stat
from chipperf.results.read.collect import collect
from chipperf.store import db
from chipperf.store.boardtext import board_text
from chipperf.store.entry import history_text
from chipperf.store.history import higher_is_better, history
from chipperf.store.ingest import ingest_dir
from chipperf.store.leaderboard import board, board_html


def _open(root: Path) -> sa.Engine:
    return db.open_store(f"sqlite:///{root / 'store.sqlite'}")


def test_units_say_their_kind() -> None:
    assert [figure_kind(u) for u in ("GiB", "bytes", "GB/s", "TFLOP/s", "samples/s", "TFLOPS",
                                     "ms", "fraction", "top1")] == \
        ["capacity", "capacity", "rate", "rate", "rate", "rate", "latency", "share", None]


def test_a_capacity_is_headlined_in_bytes_not_bytes_per_second() -> None:
    capacity = CaseResult(dir_name="main_memory-capacity", suite="base", metric_name="GiB",
                          throughput_unit="bytes/s",
                          aggregate={"metric_value": Stat(n=2, mean=61.5, median=61.5),
                                     "throughput_raw": Stat(n=2, mean=3.1e10, median=3.1e10)})
    head = headline(capacity)
    assert (head.name, head.unit, head.kind, head.of(capacity)) == ("metric_value", "GiB",
                                                                    "capacity", 61.5)


def test_marks_name_the_preset_smoke_data_and_synthetic_input() -> None:
    marked = CaseResult(dir_name="x", preset="tiny preset: 0.14 M params", smoke_test="8 images",
                        data_mode="synthetic")
    assert case_marks(marked) == ("tiny preset: 0.14 M params", "smoke data",
                                  "synthetic: compute only")


def test_an_operation_figure_is_its_reports_value(tmp_path: Path) -> None:
    op = SynthCase(model="mm-FP32", framework="pytorch_2.13", nnodes=1, nproc=1, bench=True,
                   rounds=(SynthRound(20.0), SynthRound(30.0), SynthRound(40.0)))
    run_dir = write_run(tmp_path, [op], suite="operation")
    engine = _open(tmp_path)
    ingest_dir(engine, run_dir)
    (reported,) = collect(run_dir).summary.cases          # what report.html is rendered from
    (group,) = board(engine)
    (row,) = group.rows
    # the mean of 20, 30 and 40 TFLOP/s: what the report shows, not FLOP/s over the window
    assert (row.figures["throughput_raw"], row.unit, row.kind) == (30.0, "TFLOP/s", "rate")
    assert reported.aggregate["metric_value"].mean == row.figures["throughput_raw"]


def _finished_with(run_dir: Path, **extra: object) -> None:
    """Every rank-0 FINISHED of the run with ``extra`` keys added (what a case would log)."""
    for log in run_dir.glob("*/round*/*_noderank0/rank0.out.log"):
        lines = log.read_text().splitlines(keepends=True)
        for i, line in enumerate(lines):
            if '"event": "FINISHED"' in line:
                head, _, body = line.partition("[PerfLog] ")
                record = json.loads(body)
                record["value"].update(extra)
                lines[i] = f"{head}[PerfLog] {json.dumps(record)}\n"
        log.write_text("".join(lines))


def test_run_mode_and_marks_keep_figures_apart_and_shown(tmp_path: Path) -> None:
    engine = _open(tmp_path)
    real = run(tmp_path, 1, [case(1000.0)])
    timed = run(tmp_path, 2, [case(1200.0)])
    _finished_with(timed, run_mode={"mode": "performance", "warmup_steps": 2, "timed_steps": 12})
    tiny = run(tmp_path, 3, [case(5000.0)])
    _finished_with(tiny, preset={"name": "tiny", "params": 140_000, "full_params": 8e9})
    for run_dir in (real, timed, tiny):
        ingest_dir(engine, run_dir)
    (group,) = board(engine)
    rows = {(r.run_mode, r.marks): r.figures["throughput_raw"] for r in group.rows}
    assert rows == {("", ""): 1000.0,
                    ("performance: 2 warm-up + 12 timed steps", ""): 1200.0,
                    ("", "tiny preset: 0.14 M params"): 5000.0}, rows
    page = board_html([group], lambda ref: None)
    assert "<span class='mark'>[tiny preset: 0.14 M params]</span>" in page
    assert "performance: 2 warm-up + 12 timed steps" in page


def test_history_keeps_run_modes_and_marks_apart_and_says_the_units(tmp_path: Path) -> None:
    engine = _open(tmp_path)
    real = run(tmp_path, 1, [case(1000.0)])
    tiny = run(tmp_path, 2, [case(5000.0)])
    _finished_with(tiny, preset={"name": "tiny", "params": 140_000, "full_params": 8e9})
    op = write_run(tmp_path, [SynthCase(model="mm-FP32", nnodes=1, nproc=1, bench=True,
                                        rounds=(SynthRound(20.0), SynthRound(30.0)))],
                   suite="operation", run_id="run20231103120000")
    for run_dir in (real, tiny, op):
        ingest_dir(engine, run_dir)
    series = history(engine, "resnet50")
    assert sorted((s.marks, s.points[0].point.value) for s in series) == [
        ("", 1000.0), ("tiny preset: 0.14 M params", 5000.0)]
    (spec,) = history(engine, "mm-FP32", "metric_value")
    assert spec.unit == "TFLOP/s"
    assert "[tiny preset: 0.14 M params]" in "".join(history_text(s) for s in series)


def test_history_defaults_to_the_headline_figure_and_the_reports_statistic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """operation/'s history is its measured TFLOP/s (not FLOP/s), each run's mean over its
    counted rounds (40, where the median is 30), and the output says which statistic."""
    op = write_run(tmp_path, [SynthCase(model="mm-FP32", nnodes=1, nproc=1, bench=True,
                                        rounds=(SynthRound(20.0), SynthRound(30.0),
                                                SynthRound(70.0)))], suite="operation")
    engine = _open(tmp_path)
    ingest_dir(engine, op)
    (series,) = history(engine, "mm-FP32")
    assert (series.label, series.unit, series.kind) == ("value", "TFLOP/s", "rate")
    assert series.points[0].point.value == pytest.approx(40.0)
    (flops,) = history(engine, "mm-FP32", "throughput_raw")       # named: its mean, its unit
    assert flops.unit != "TFLOP/s" and flops.points[0].point.value > 1e12
    engine.dispose()
    assert cli.main(["history", "mm-FP32", "--db", f"sqlite:///{tmp_path / 'store.sqlite'}"]) == 0
    out = capsys.readouterr().out
    assert "the mean over its counted rounds" in out and "value (TFLOP/s, rate, mean)" in out


def test_a_headline_latency_is_better_lower() -> None:
    assert not higher_is_better(HEADLINE, "latency") and higher_is_better(HEADLINE, "capacity")


def test_a_base_row_shows_only_the_columns_of_a_spec_measurement(tmp_path: Path) -> None:
    """base/ has no MFU and no energy per unit of work: the table leaves them out and says
    why; a training table leaves out the share of spec peak."""
    spec = write_run(tmp_path, [SynthCase(model="computation-FP32", nnodes=1, nproc=1,
                                          bench=True, rounds=(SynthRound(20.0),))],
                     suite="base", run_id="run20231101120000")
    engine = _open(tmp_path)
    for run_dir in (spec, run(tmp_path, 2, [case(1000.0)])):
        ingest_dir(engine, run_dir)
    pages = {g.suite: board_html([g], lambda ref: None) for g in board(engine)}
    base, training = pages["base"], pages["training"]
    assert "<th>MFU</th>" not in base and "<th>energy/unit (J)</th>" not in base
    assert "<th>share of spec</th>" in base
    assert "not shown: MFU: a spec measurement runs no model: no model FLOPs; MFU, causal attn " \
           "halved: only training cases report their attention part (a spec measurement runs " \
           "no model); energy/unit (J): a spec measurement has no unit of work" in base
    assert "<th>MFU</th>" in training and "<th>share of spec</th>" not in training
    assert "<th>MFU, causal attn halved</th>" in training
    assert "share of spec: only base/ and operation/ measure against" in training
    text = {g.suite: board_text([g]) for g in board(engine)}        # `leaderboard --text`
    base_head, training_head = (next(line for line in text[s].splitlines()
                                     if line.startswith("vendor")) for s in ("base", "training"))
    assert "MFU" not in base_head and "energy/unit" not in base_head and "share of spec" in base_head
    assert "not shown: MFU: a spec measurement runs no model" in text["base"]
    assert "MFU" in training_head and "share of spec" not in training_head
