"""Summarise a run directory and write its reports.

``summarize(run_dir)`` reads the directory into a ``RunSummary``;
``write_reports(run_dir)`` also writes, each atomically::

    summary.json  summary.csv  summary.md  report.html  <case dir>/result.json
    sweep.csv   (a run with SWEEPS: one row per sweep round, chipperf.results.render.gridsweep)

The controller calls ``write_reports`` at the end of a run and ``chipperf report``
calls it on any directory later (a FlagPerf result directory too).
"""

from __future__ import annotations

from pathlib import Path

from chipperf.results.compute.schema import RunSummary
from chipperf.results.layout import atomic_write
from chipperf.results.read.collect import Collected, collect
from chipperf.results.read.details import read_details
from chipperf.results.read.sweepread import read_sweeps
from chipperf.results.render.data import case_json, to_csv, to_json
from chipperf.results.render.gridsweep import sweep_csv
from chipperf.results.render.html import report_html
from chipperf.results.render.markdown import summary_markdown

REPORT_MODE = 0o644


def summarize(run_dir: Path) -> RunSummary:
    return collect(Path(run_dir)).summary


def write_reports(run_dir: Path) -> list[Path]:
    """Write every report file; returns their paths (case result.json files included)."""
    return write_collected(Path(run_dir), collect(Path(run_dir)))


def write_collected(run_dir: Path, collected: Collected) -> list[Path]:
    summary = collected.summary
    sweeps = read_sweeps(run_dir, summary)
    outputs = {
        run_dir / "summary.json": to_json(summary),
        run_dir / "summary.csv": to_csv(summary),
        run_dir / "summary.md": summary_markdown(summary),
        run_dir / "report.html": report_html(collected, read_details(run_dir, summary), sweeps),
    }
    if sweeps:
        outputs[run_dir / "sweep.csv"] = sweep_csv(sweeps)
    for case in summary.cases:
        if (run_dir / case.dir_name).is_dir():
            outputs[run_dir / case.dir_name / "result.json"] = case_json(case)
    for path, text in outputs.items():
        atomic_write(path, text)
        path.chmod(REPORT_MODE)   # atomic_write's temp file is 0600; reports are for reading
    return list(outputs)
