"""Text of figures: number formatting, statistics, Markdown and console tables.

An absent figure prints as ``—`` (``DASH``); every renderer formats through ``fmt``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chipperf.results.compute.schema import Stat

DASH = "—"


# ---------------------------------------------------------------- number formatting


def fmt(value: Any, kind: str = "") -> str:
    """A figure as text: ``kind`` is "", "bytes", "pct", "ratio" (0..1 shown as %), "j"."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, (int, float)):
        return str(value)
    if kind == "bytes":
        return f"{value / 2**30:.2f} GiB"
    if kind == "ratio":
        return f"{value * 100:.2f}%"
    if kind == "pct":
        return f"{value:.1f}%"
    return _significant(float(value))


def _significant(value: float) -> str:
    magnitude = abs(value)
    if magnitude == 0:
        return "0"
    if magnitude >= 1e9 or magnitude < 1e-3:
        return f"{value:.4g}"
    if magnitude >= 1e5:
        return f"{value:,.0f}"
    if magnitude >= 100:
        return f"{value:,.1f}"
    return f"{value:.4g}"


def kind_of(name: str) -> str:
    if "bytes" in name:
        return "bytes"
    if name in ("mfu", "mfu_causal", "mfu_measured", "share_of_peak"):
        return "ratio"
    if name.endswith("_pct"):
        return "pct"
    return ""


def stat_text(s: Stat | None, kind: str = "") -> str:
    """'mean ± CV' (CV only with >= 2 rounds)."""
    if s is None or s.mean is None:
        return DASH
    text = fmt(s.mean, kind)
    return f"{text} ± {s.cv * 100:.1f}%" if s.cv is not None else text


# ---------------------------------------------------------------- tables


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table."""
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), line(["---"] * len(header)), *map(line, rows)])


def console_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)
