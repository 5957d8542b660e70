"""What `chipperf run` prints last: the cases that did not succeed and why, the headline
table, where the results are, and whether the results store took the run."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from chipperf.config.model import SkippedCase


def ingest_screen(run_dir: Path, db_url: str | None) -> str:
    """The line a run prints after putting its result directory into the results store."""
    try:
        from chipperf.store.entry import ingest_after_run
    except ImportError as exc:  # SQLAlchemy missing: the run itself is complete on disk
        return f"Not ingested into the results store: {exc} (pip install SQLAlchemy)\n"
    return ingest_after_run(run_dir, db_url)


def final_screen(run_dir: Path, cases: dict[str, tuple[str, str]],
                 skipped: Sequence[SkippedCase] = ()) -> str:
    """What a run prints last: each case --keep-going left out and why each case that did not
    succeed failed, the headline table as `chipperf report` prints it, and where the results
    are, from where the user stands."""
    from chipperf.results.read.collect import collect
    from chipperf.results.render.console import console

    where = shown_path(run_dir)
    lines = ["", *(f"skipped (--keep-going): {s.key}: {'; '.join(s.problems)}" for s in skipped),
             *(f"{status}: {key}: {reason}" for key, (status, reason) in cases.items()
               if status != "succeeded")]
    try:
        lines.append(console(collect(run_dir).summary).rstrip("\n"))
    except Exception as exc:  # the run is over and on disk: a report bug must not hide where
        lines.append(f"(the summary table could not be made: {exc}; try chipperf report {where})")
    lines += [f"Results: {where}/  (report.html, summary.md, run.json; "
              f"`chipperf report {where}` prints this table again)"]
    return "\n".join(lines) + "\n"


def shown_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies under it, else absolute."""
    absolute = Path(path).resolve()
    try:
        return str(absolute.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(absolute)


