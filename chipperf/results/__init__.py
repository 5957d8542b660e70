"""Result directories: layout, status, atomic writes, summary schema, report, compare, check.

The public entry points are imported lazily, so ``chipperf.results.layout`` (used by
the controller and inside containers) stays cheap to import::

    summarize(run_dir) -> RunSummary          write_reports(run_dir) -> list[Path]
    report_main(run_dir, readme_table) -> int compare_main(dirs, baseline) -> int
    check_main(run_dir) -> int

The parts, by what they do (no module imports another in a circle; see
tests/unit/test_results_layering.py)::

    layout.py   the directory contract, shared with the controller and the cases
    read/       chipperf's and FlagPerf's formats on disk, monitor samples, collect, check
    compute/    the schema, per-round and per-case figures, power, peaks
    render/     console, JSON/CSV, Markdown, README table, HTML, SVG, compare
    report.py, entry.py   summarise and write a run; what the CLI calls
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "summarize": "chipperf.results.report",
    "write_reports": "chipperf.results.report",
    "report_main": "chipperf.results.entry",
    "compare_main": "chipperf.results.entry",
    "check_main": "chipperf.results.entry",
    "RunSummary": "chipperf.results.compute.schema",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'chipperf.results' has no attribute {name!r}")
