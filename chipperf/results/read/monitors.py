"""One monitor file, whichever format it is in: chipperf's JSONL or FlagPerf's text lines.

``read_monitor`` looks at the first non-blank line (``{`` starts chipperf's JSONL) and streams
the file through ``samples.jsonl_records`` or ``flagperf.text_records`` into
``samples.accumulate``.
"""

from __future__ import annotations

from pathlib import Path

from chipperf.results.compute.channel import Window
from chipperf.results.read.flagperf import text_records
from chipperf.results.read.samples import MonitorFile, accumulate, jsonl_records, read_lines
from chipperf_runtime.monitors.command import DEFAULT_INTERVAL_S


def read_monitor(path: Path, window: Window | None, interval_s: float = DEFAULT_INTERVAL_S) -> MonitorFile:
    """Summarise one monitor file (JSONL, or FlagPerf's text format) over ``window``;
    ``interval_s`` is the sampling period unless the file's info line says otherwise."""
    out = MonitorFile(path=path, window=window, interval_s=interval_s)
    if not path.is_file():
        return out
    out.present = True
    try:
        if _is_text_format(path):
            accumulate(text_records(path, read_lines(path), out), out)
        else:
            accumulate(jsonl_records(path, out), out)
    except OSError as exc:
        out.problem(0, f"unreadable: {exc}")
    return out


def _is_text_format(path: Path) -> bool:
    with open(path, "rb") as handle:
        for raw in handle:
            text = raw.strip()
            if text:
                return not text.startswith(b"{")
    return False
