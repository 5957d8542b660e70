"""No share above 100 % passes, nor power over a too-short window: on real result dirs,
the figure is left out, every output names the error and its cause, and check fails."""

from __future__ import annotations

import json
from pathlib import Path

from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results.compute.plausible import Where, checked_round, window_notes
from chipperf.results.compute.schema import RoundResult
from chipperf.results.entry import check_main, report_main
from chipperf.results.read.check import check
from chipperf.results.read.collect import collect
from chipperf_runtime.perflog import MARKER

OUTPUTS = ("summary.md", "summary.csv", "summary.json", "report.html")


def _patch_finished(run: Path, **values: object) -> None:
    for log in run.glob("*/round*/*_noderank0/rank0.out.log"):
        lines = log.read_text().splitlines()
        for i, line in enumerate(lines):
            if '"FINISHED"' in line:
                record = json.loads(line.split(MARKER, 1)[1])
                record["value"].update(values)
                lines[i] = MARKER + json.dumps(record)
        log.write_text("\n".join(lines) + "\n")


def _report(run: Path, capsys) -> tuple[str, dict[str, str]]:
    assert report_main(run) == 0
    console = capsys.readouterr().out
    return console, {name: (run / name).read_text() for name in OUTPUTS}


def test_an_mfu_above_100_percent_is_an_error_in_every_output_and_fails_check(tmp_path,
                                                                               capsys) -> None:
    # 1000 samples/s x 2e12 FLOP over 4 A100s (312 TFLOP/s bf16 each): 160 % of the sheet
    case = SynthCase(flops_per_unit=2e12, rounds=(SynthRound(), SynthRound()))
    run = write_run(tmp_path, [case])
    summary = collect(run).summary
    result = summary.cases[0].rounds[0]
    assert result.mfu is None and result.reasons["mfu"].startswith("ERROR: MFU 160.")
    assert "spec sheet's bf16 peak (312 TFLOP/s per chip)" in result.reasons["mfu"]
    assert "chipperf_runtime/vendors/nvidia.py" in result.reasons["mfu"]
    assert summary.cases[0].aggregate["mfu"].n == 0
    console, files = _report(run, capsys)
    assert "ERROR: above 100 %" in console and "ERROR round 1: MFU: MFU 160." in console
    for name, text in files.items():
        assert "above 100 %" in text and "chipperf_runtime/vendors/nvidia.py" in text, name
    assert check_main(run) == 1
    out = capsys.readouterr().out
    assert "ERROR round 2: MFU: MFU 160." in out and "problem(s)" in out


def test_an_mfu_below_100_percent_passes(tmp_path) -> None:
    run = write_run(tmp_path, [SynthCase()])
    assert collect(run).summary.cases[0].rounds[0].mfu is not None
    assert not [p for p in check(run).problems if "ERROR" in p]


def test_a_base_share_above_100_percent_names_the_sheet_peak_and_the_measured_value(
        tmp_path, capsys) -> None:
    case = SynthCase(model="computation-FP64", vendor="nvidia", chip="H100", nnodes=1, nproc=1,
                     rounds=(SynthRound(),))
    run = write_run(tmp_path, [case], suite="base")
    _patch_finished(run, suite="base", spec="computation-FP64", share_of_peak=54.6 / 34,
                    dtype="fp64", metric={"name": "TFLOP/s", "value": 54.6, "target": None,
                                          "higher_is_better": True})
    why = collect(run).summary.cases[0].rounds[0].reasons["share_of_peak"]
    assert why.startswith("ERROR: share of spec peak 160.59 % is above 100 %")
    assert "fp64 peak (34 TFLOP/s) is below what was measured (54.6 TFLOP/s)" in why
    console, files = _report(run, capsys)
    assert "ERROR: above 100 %" in console and "34 TFLOP/s" in console
    assert all("54.6 TFLOP/s" in text for text in files.values())
    assert any("share of spec peak" in p and "above 100 %" in p for p in check(run).problems)


def test_a_base_case_above_the_chip_peak_speaks_of_share_of_spec_not_mfu(tmp_path) -> None:
    # 2000 TFLOP/s of bf16 GEMM on an H100 (989 on the sheet): one error, the share of spec
    case = SynthCase(model="computation-BF16", chip="H100", nnodes=1, nproc=1, bench=True,
                     rounds=(SynthRound(throughput=2000.0),))
    run = write_run(tmp_path, [case], suite="base")
    result = collect(run).summary.cases[0].rounds[0]
    assert result.mfu is None and not result.reasons["mfu"].startswith("ERROR")
    assert result.reasons["share_of_peak"].startswith("ERROR: share of spec peak 202.")
    errors = [p for p in check(run).problems if "ERROR" in p]
    assert errors and all("MFU" not in p and "share of spec" in p for p in errors)
    assert all("chipperf_runtime/vendors/nvidia.py" in p for p in errors)


def test_power_over_a_window_shorter_than_two_monitor_intervals_fails(tmp_path,
                                                                      capsys) -> None:
    run = write_run(tmp_path, [SynthCase(seconds=3, rounds=(SynthRound(),))], interval_s=2.0)
    result = collect(run).summary.cases[0].rounds[0]
    assert result.avg_power_w_per_chip is None and result.energy_j is None
    assert "shorter than 2 accel monitor intervals (2 x 2 s)" in \
        result.reasons["avg_power_w_per_chip"]
    assert result.throughput is not None and result.throughput.raw   # the rest stays
    assert check_main(run) == 1
    assert "timed window (3 s) is shorter than 2" in capsys.readouterr().out


def test_a_long_enough_window_keeps_its_power(tmp_path) -> None:
    run = write_run(tmp_path, [SynthCase(seconds=5, rounds=(SynthRound(),))], interval_s=2.0)
    result = collect(run).summary.cases[0].rounds[0]
    assert result.avg_power_w_per_chip is not None and result.energy_j is not None


def test_mfu_against_a_measured_peak_above_100_percent_blames_the_base_run() -> None:
    result = RoundResult(number=1, mfu_measured=1.5531, measured_peak_flops_per_chip=1e11,
                         measured_peak_source="base/run1/computation-FP32/round1")
    out = checked_round(result, Where("resnet50/round1", "cpu", "xeon", "inference"), {})
    assert out.mfu_measured is None
    assert "155.31 %" in out.reasons["mfu_measured"]
    assert "0.1 TFLOP/s per chip, base/run1/computation-FP32/round1" in \
        out.reasons["mfu_measured"]
    assert out.problems and out.problems[0].startswith("resnet50/round1: MFU vs measured peak")


def test_a_window_shorter_than_one_monitor_interval_is_said_so_everywhere(tmp_path,
                                                                          capsys) -> None:
    run = write_run(tmp_path, [SynthCase(seconds=3, rounds=(SynthRound(),))], interval_s=5.0)
    result = collect(run).summary.cases[0].rounds[0]
    assert result.reasons["timed_window"].startswith(
        "the timed window (3 s) is shorter than one monitor interval (5 s)")
    console, files = _report(run, capsys)
    for name, text in {"console": console, **files}.items():
        assert "shorter than one monitor interval (5 s)" in text, name
    long = write_run(tmp_path / "long", [SynthCase(seconds=6, rounds=(SynthRound(),))],
                     interval_s=5.0)
    assert "timed_window" not in collect(long).summary.cases[0].rounds[0].reasons


def test_several_short_windows_are_one_note_with_their_span(tmp_path) -> None:
    """A sweep's rounds (here 3) each shorter than an interval: one note, not one per round."""
    run = write_run(tmp_path, [SynthCase(seconds=3, rounds=(SynthRound(),) * 3)], interval_s=5.0)
    (note,) = window_notes(collect(run).summary.cases[0])
    assert note.startswith("rounds 1-3: the timed window (3 s) is shorter than one monitor "
                           "interval (5 s)"), note
