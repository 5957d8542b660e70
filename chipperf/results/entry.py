"""Entry functions the CLI wires to ``chipperf report | compare | check``.

Each prints to stdout and returns the exit code: 0 done / compliant, 1 problems
found (check), nothing to compare, no case matching ``--case`` or a README without one
pair of results markers, 2 a directory that is not there or options that do not go
together.
"""

from __future__ import annotations

from pathlib import Path

from chipperf.results.compute.schema import RunSummary
from chipperf.results.layout import atomic_write
from chipperf.results.read.check import check
from chipperf.results.read.check_flagperf import check_flagperf, is_flagperf_dir
from chipperf.results.read.collect import collect
from chipperf.results.render import readme as readme_block
from chipperf.results.render.compare import compare, comparison_console
from chipperf.results.render.compare_html import comparison_html, served_fronts_text
from chipperf.results.render.console import console
from chipperf.results.report import write_collected


def report_main(run_dir: Path, readme_table: bool = False, into: Path | None = None,
                case: str | None = None, measured_peaks: Path | None = None) -> int:
    """Write summary.json/csv/md, report.html and result.json files, then print the cases
    table; with ``readme_table`` print the README table (only the cases ``case`` names,
    when given) and write nothing, or with ``into`` put it between the results markers of
    that README instead. ``measured_peaks``: a base/ run whose GEMM peaks give ``mfu_measured``."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        print(f"chipperf report: {run_dir}: not a directory")
        return 2
    if (into is not None or case is not None) and not readme_table:
        print("chipperf report: --into and --case go with --readme-table")
        return 2
    collected = collect(run_dir, measured_peaks)
    if readme_table:
        return _readme_table(collected.summary, into, case)
    try:
        written = write_collected(run_dir, collected)
    except OSError as exc:
        print(f"chipperf report: cannot write the reports into {run_dir}: {exc}")
        return 1
    print(console(collected.summary), end="")
    print("wrote " + ", ".join(str(p.relative_to(run_dir)) for p in written[:4])
          + f" and {len(written) - 4} case result.json file(s) in {run_dir}")
    return 0


def _readme_table(summary: RunSummary, into: Path | None, case: str | None) -> int:
    if case is not None:
        summary = readme_block.select_cases(summary, case)
        if not summary.cases:
            print(f"chipperf report: no case of run {summary.run_id} matches {case!r} "
                  "(give a model name, or a glob over the case key or case directory)")
            return 1
    table = readme_block.readme_table(summary)
    if into is None:
        print(table, end="")
        return 0
    return _write_into(Path(into), table, summary)


def _write_into(readme: Path, table: str, summary: RunSummary) -> int:
    """Put ``table`` between the results markers of ``readme``."""
    try:
        text = readme.read_text(encoding="utf-8")
    except OSError as exc:
        print(f"chipperf report: cannot read {readme}: {exc}")
        return 1
    updated, problems = readme_block.replace_results_block(text, table)
    if updated is None:
        print(f"chipperf report: {readme}: " + "; ".join(problems) + ". Put one line "
              f"{readme_block.RESULTS_START} and, below it, one line {readme_block.RESULTS_END} "
              "where the table goes.")
        return 1
    try:
        atomic_write(readme, updated)
    except OSError as exc:
        print(f"chipperf report: cannot write {readme}: {exc}")
        return 1
    rows = len(summary.cases)
    print(f"wrote the results table of run {summary.run_id} ({rows} case row(s)) into {readme}")
    return 0


def compare_main(dirs: list[Path], baseline: int = 0, html: Path | None = None) -> int:
    """Compare the runs in ``dirs``; ``baseline`` is the index (0 = first) of the one the
    ratios are taken against; ``html``: also write the comparison page there."""
    missing = [d for d in dirs if not Path(d).is_dir()]
    if missing:
        print("chipperf compare: not a directory: " + ", ".join(map(str, missing)))
        return 2
    if not 0 <= baseline < len(dirs):
        print(f"chipperf compare: baseline {baseline} must be 0..{len(dirs) - 1} "
              "(an index into the directories given)")
        return 2
    summaries = [collect(Path(d)).summary for d in dirs]
    comparison = compare(summaries, baseline)
    if not comparison.rows:
        print("chipperf compare: no case has a counted round to compare")
        return 1
    print(comparison_console(comparison), end="")
    print(served_fronts_text(comparison, summaries), end="")
    if html is not None:
        atomic_write(html, comparison_html(comparison, summaries))
        print(f"Comparison page: {html}")
    return 0


def check_main(run_dir: Path) -> int:
    """List every way ``run_dir`` departs from the result-directory contract."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        print(f"chipperf check: {run_dir}: not a directory")
        return 2
    flagperf = is_flagperf_dir(run_dir)
    report = check_flagperf(run_dir) if flagperf else check(run_dir)
    if flagperf:
        print(f"{run_dir}: a FlagPerf result directory (no run.json): checked what FlagPerf "
              "writes (docs/results.md, section 6)")
    for problem in report.problems:
        print(problem)
    counts = (f"{report.cases} case(s), {report.rounds} round(s), {report.nodes} node dir(s), "
              f"{report.perflog_lines} PerfLog line(s), {report.monitor_lines} monitor line(s)")
    if report.problems:
        print(f"{len(report.problems)} problem(s) in {run_dir} ({counts} checked)")
        return 1
    contract = "FlagPerf's result layout" if flagperf else "the result-directory contract"
    print(f"ok: {run_dir} follows {contract} ({counts} checked)")
    return 0
