"""Every report file rendered from the one schema; the report / compare / check entry points."""

from __future__ import annotations

import csv
import io
import json
import re
import stat
from pathlib import Path

import pytest
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results import check_main, compare_main, report_main, summarize, write_reports
from chipperf.results.compute.schema import RunSummary
from chipperf.results.render.readme import readme_table
from chipperf.results.render.svg import nice_ticks
from chipperf.results.render.text import fmt

CASE = "resnet50-pytorch_2.13-A100-2x2"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    rounds = (SynthRound(), SynthRound(1010.0), SynthRound(990.0, converged=False))
    return write_run(tmp_path_factory.mktemp("render"), [SynthCase(seconds=10, rounds=rounds)])


def test_write_reports_writes_every_file(run):
    written = write_reports(run)
    names = [p.relative_to(run).as_posix() for p in written]
    assert names == ["summary.json", "summary.csv", "summary.md", "report.html",
                     f"{CASE}/result.json"]
    summary = RunSummary.from_dict(json.loads((run / "summary.json").read_text()))
    assert summary == summarize(run)
    case = json.loads((run / CASE / "result.json").read_text())
    assert case["counted"] == [1, 2] and case["excluded"][0]["round"] == 3
    assert not list(run.glob("**/.*.tmp"))                            # atomic: no temp left


def test_csv_rows_per_round_then_statistics(run):
    write_reports(run)
    rows = list(csv.DictReader(io.StringIO((run / "summary.csv").read_text())))
    assert [r["round"] for r in rows] == ["1", "2", "3", "mean", "median", "min", "max", "cv",
                                          "olympic_mean"]
    assert float(rows[0]["throughput_raw"]) == pytest.approx(1000.0)
    assert rows[2]["converged"] == "False"
    assert float(rows[3]["throughput_raw"]) == pytest.approx(1005.0)    # rounds 1 and 2
    assert rows[0]["cpu_energy_j"] == "" and "cpu_energy_j:" in rows[0]["reasons"]
    assert rows[8]["throughput_raw"] == ""                              # olympic: < 5 rounds


def test_markdown_tables_and_reasons(run):
    write_reports(run)
    text = (run / "summary.md").read_text()
    assert text.startswith("# chipperf run `run20231114221320`")
    assert "| 1 | succeeded | yes | 1,000.0 |" in text
    assert "Not counted: round 3: did not converge: top1 0.5 vs target 0.75." in text
    assert "- CPU energy, RAPL (J): every round: 10.0.0.1_noderank0: pwr_monitor.log has no RAPL" \
        in text
    assert "MFU divides achieved FLOP/s by the spec-sheet peak in bf16" in text


def test_readme_table_is_one_row_per_case(run):
    table = readme_table(summarize(run))
    lines = table.splitlines()
    assert lines[0].startswith("| config | nodes x procs | rounds (counted/total) |")
    assert lines[2].startswith("| config_A100x2x2 | 2x2 | 2/3 |")
    assert "1,005.0 ± 0.7% samples/s" in lines[2]
    assert "(bf16)" in lines[2] and "2/3" in lines[2]
    assert lines[-1] == ("- resnet50:pytorch_2.13:A100:2:2:3: round 3 not counted: did not "
                         "converge: top1 0.5 vs target 0.75")


def test_report_main_prints_and_writes(run, capsys):
    assert report_main(run, readme_table=False) == 0
    out = capsys.readouterr().out
    assert "resnet50:pytorch_2.13:A100:2:2:3" in out and "2/3" in out
    assert "wrote summary.json, summary.csv, summary.md, report.html" in out
    assert report_main(run, readme_table=True) == 0
    assert capsys.readouterr().out.startswith("| config |")
    assert report_main(run / "nope", readme_table=False) == 2


def test_check_main_exit_codes(run, capsys):
    assert check_main(run) == 0
    assert capsys.readouterr().out.startswith(f"ok: {run} follows the result-directory contract")
    assert check_main(run / "nope") == 2


def test_check_main_lists_problems(tmp_path, capsys):
    bad = write_run(tmp_path, [SynthCase(seconds=5, rounds=(SynthRound(),))])
    (bad / CASE / "round1" / "10.0.0.1_noderank0" / "status").write_text("done\n")
    assert check_main(bad) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"{CASE}/round1/10.0.0.1_noderank0/status:1: 'done' is not one of "
                      "starting, running, succeeded, failed, timeout, canceled")
    assert out[-1].startswith(f"1 problem(s) in {bad}")


def test_compare_main(run, tmp_path, capsys):
    other = write_run(tmp_path, [SynthCase(chip="H100", seconds=10,
                                           rounds=(SynthRound(2000.0), SynthRound(2020.0)))],
                      run_id="run20231115000000")
    assert compare_main([run, other], baseline=0) == 0
    out = capsys.readouterr().out
    assert "run20231114221320 (nvidia/A100) [baseline]" in out
    assert re.search(r"2,010\.0 ±0\.7% \(n=2\) x2\.000", out)
    assert compare_main([run, other], baseline=5) == 2
    assert compare_main([run, tmp_path / "nope"], baseline=0) == 2


def test_number_formatting():
    assert fmt(None) == "—" and fmt(True) == "yes"
    assert fmt(2**31, "bytes") == "2.00 GiB" and fmt(0.0123, "ratio") == "1.23%"
    assert fmt(1234.56) == "1,234.6" and fmt(0.1234567) == "0.1235" and fmt(3e9) == "3e+09"
    assert fmt(9_000_121.15) == "9,000,121"


def test_nice_ticks_cover_the_range():
    for lo, hi in ((0, 1), (0, 97), (3.2, 3.3), (0, 2500.5), (-5, 5), (7, 7)):
        ticks = nice_ticks(lo, hi)
        assert ticks[0] <= lo and ticks[-1] >= hi and len(ticks) <= 8


def test_report_files_are_readable_by_others(run):
    write_reports(run)
    for name in ("summary.json", "summary.csv", "summary.md", "report.html"):
        assert (run / name).stat().st_mode & stat.S_IROTH, name
