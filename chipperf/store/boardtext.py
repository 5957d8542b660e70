"""The leaderboard as plain text (`chipperf leaderboard --text`): the same groups and rows as
the HTML page (chipperf.store.leaderboard), each table with only the columns its suite reports
and a line naming those it leaves out, and why; where rows served an LLM sweep, the Pareto
front of each row's newest run as a table."""

from __future__ import annotations

from collections.abc import Sequence

from chipperf.results.render.servecurve import FRONT_HEADER, front_rows
from chipperf.results.render.text import console_table
from chipperf.store.leaderboard import Column, Group, Row, applicable_columns, served_runs

DASH = "-"


def board_text(groups: Sequence[Group]) -> str:
    """Every group as a console table, fastest row first; '' for an empty store."""
    return "\n".join(_group_text(g) for g in groups)


def _group_text(group: Group) -> str:
    columns, left_out = applicable_columns(group.suite)
    fp = ", ".join(f"{k}={v}" for k, v in group.fingerprint.items() if v is not None)
    lines = [f"{group.title} ({group.suite})  fingerprint {group.fingerprint_key}: {fp}"]
    if left_out:
        lines.append("not shown: " + "; ".join(f"{c.header}: {c.why_not}" for c in left_out))
    header = ["vendor", "chip", "topology", "run mode", "figure", "noise band",
              *(c.header for c in columns), "runs", "latest run"]
    lines.append(console_table(header, [_row_text(r, columns) for r in group.rows]))
    front = front_rows(served_runs(group))
    if front:
        lines += ["served sweeps: the Pareto front of each row's newest run (times in ms)",
                  console_table(FRONT_HEADER, front)]
    return "\n".join(lines) + "\n"


def _row_text(row: Row, columns: Sequence[Column]) -> list[str]:
    band = f"{_num(row.band.low)} .. {_num(row.band.high)}" if row.band else "one run"
    figure = " ".join(x for x in (_num(row.figures["throughput_raw"]), row.unit, row.kind) if x)
    chip = f"{row.chip} [{row.marks}]" if row.marks else row.chip
    return [row.vendor, chip, row.topology, row.run_mode or DASH, figure, band,
            *(_cell(row.figures[c.figure], c.percent) for c in columns), str(row.runs),
            row.latest.run_id]


def _cell(value: float | None, percent: bool) -> str:
    if value is None:
        return f"{DASH} (not measured)"
    return f"{100 * value:.1f}%" if percent else _num(value)


def _num(value: float | None) -> str:
    if value is None:
        return DASH
    return f"{value:.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
