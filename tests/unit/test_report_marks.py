"""The report's cases table marks each row whose figures are not the chip's (issue 42): smoke
data, a reduced preset and synthetic input, in the console, summary.md, report.html,
summary.csv and the README table alike; an unmarked case stays unmarked."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results.entry import report_main
from chipperf.results.read.collect import collect
from chipperf.results.render.readme import readme_table
from chipperf_runtime.perflog import MARKER

SMOKE, SYNTHETIC, PLAIN = "resnet50", "bert", "gpt2"


def _finished_with(run: Path, model: str, **extra: object) -> None:
    for log in run.glob(f"{model}-*/round*/*_noderank0/rank0.out.log"):
        lines = log.read_text().splitlines()
        for i, line in enumerate(lines):
            if '"FINISHED"' in line:
                event = json.loads(line.split(MARKER, 1)[1])
                event["value"].update(extra)
                lines[i] = MARKER + json.dumps(event)
        log.write_text("\n".join(lines) + "\n")


def _run(root: Path) -> Path:
    one = (SynthRound(),)
    run = write_run(root, [SynthCase(model=SMOKE, rounds=one, smoke_test="8 images a class"),
                           SynthCase(model=SYNTHETIC, rounds=one),
                           SynthCase(model=PLAIN, rounds=one)])
    _finished_with(run, SYNTHETIC, data_mode="synthetic",
                   preset={"name": "tiny", "params": 140_000, "full_params": 8e9})
    return run


def _rows(text: str) -> dict[str, str]:
    """The first line (or table row) naming each case's model."""
    return {m: next(line for line in text.splitlines() if f"{m}:" in line or f"{m}-" in line)
            for m in (SMOKE, SYNTHETIC, PLAIN)}


def _marked(rows: dict[str, str]) -> None:
    assert "[smoke data]" in rows[SMOKE], rows[SMOKE]
    assert "tiny preset: 0.14 M params" in rows[SYNTHETIC], rows[SYNTHETIC]
    assert "synthetic: compute only" in rows[SYNTHETIC], rows[SYNTHETIC]
    assert not re.search(r"smoke|preset|synthetic", rows[PLAIN]), rows[PLAIN]


def test_every_report_format_marks_each_row(tmp_path: Path, capsys) -> None:
    run = _run(tmp_path)
    assert report_main(run) == 0
    _marked(_rows(capsys.readouterr().out))
    _marked(_rows((run / "summary.md").read_text()))
    html = (run / "report.html").read_text()
    cases_table = html.split("<h2>Cases</h2>", 1)[1].split("</table>", 1)[0]
    _marked(_rows(cases_table.replace("<tr>", "\n<tr>")))
    # a README table names the config, not the model: its rows are the cases in order
    readme = [line for line in readme_table(collect(run).summary).splitlines()
              if line.startswith("| config_")]
    _marked(dict(zip((SMOKE, SYNTHETIC, PLAIN), readme)))


def test_the_csv_has_a_marks_column(tmp_path: Path) -> None:
    run = _run(tmp_path)
    assert report_main(run) == 0
    rows = list(csv.DictReader(io.StringIO((run / "summary.csv").read_text())))
    marks = {r["model"]: r["marks"] for r in rows if r["round"] == "mean"}
    assert marks == {SMOKE: "smoke data", SYNTHETIC: "tiny preset: 0.14 M params; "
                     "synthetic: compute only", PLAIN: ""}
