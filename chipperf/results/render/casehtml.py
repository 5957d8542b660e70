"""report.html's parts that describe a case beyond its figures: the smoke-test label, the
workload / hardware / software tables, the per-round loss and target-metric curves, the one
list of what was not measured (each reason once, with the figures and rounds it concerns) and
links to every node's logs."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from html import escape

from chipperf.results.compute.schema import (
    CaseResult,
    figures_for,
    label,
    round_reason,
    round_value,
)
from chipperf.results.read.details import CaseDetails, NodeLogs, RoundCurves
from chipperf.results.render.svg import Line, line_chart

# "no accel_energy_j: 10.0.0.1_noderank0: <why>": a figure derived from another repeats its
# reason behind these prefixes; grouped under <why> itself.
NODE_PREFIX = re.compile(r"^(?:no \w+: )?(?:\S+_noderank\d+: )?")


def smoke_banner(details: CaseDetails | None) -> str:
    if details is None or not details.smoke:
        return ""
    return (f'<p class="smoke"><b>Smoke test</b>: {escape(details.smoke)}. Read its figures as '
            "a check that the harness works, not as this chip's performance.</p>")


def facts_tables(details: CaseDetails | None) -> str:
    if details is None:
        return ""
    parts = [facts_table(title, rows) for title, rows in (
        ("Workload", details.workload), ("Hardware", details.hardware),
        ("Software", details.software))]
    return f'<div class="facts">{"".join(parts)}</div>'


def facts_table(title: str, rows: Sequence[tuple[str, str]]) -> str:
    """A captioned two-column table of (name, value): no empty header row."""
    body = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return f'<table class="facts"><caption>{escape(title)}</caption><tbody>{body}</tbody></table>'


def curve_charts(curves: RoundCurves | None) -> list[str]:
    """Loss and target-metric charts of one round (seconds since TRAIN_START)."""
    if curves is None:
        return []
    out = []
    loss = line_chart("Training loss (STEP_END, rank 0)", [Line("loss", curves.loss)],
                      "seconds since TRAIN_START", "loss", y_from_zero=True)
    if loss:
        out.append(loss)
    if curves.metric:
        name = curves.metric_name or "metric"
        lines = [Line(name, curves.metric)]
        if curves.target is not None:
            xs = [x for x, _ in curves.metric] + [0.0]
            lines.append(Line(f"target {curves.target:g}",
                              ((min(xs), curves.target), (max(xs), curves.target))))
        out.append(line_chart(f"Target metric: {name} (EVALUATE, rank 0)", lines,
                              "seconds since TRAIN_START", name))
    return out


def not_measured(case: CaseResult, gaps: dict[int, list[tuple[str, str]]]) -> str:
    """Every reason a figure or chart is missing, once, with what and which rounds it concerns.

    ``gaps``: round number -> (chart title, why) of the charts that round could not draw."""
    grouped: dict[str, tuple[dict[str, None], set[int]]] = {}

    def add(why: str, what: str, rounds: Iterable[int]) -> None:
        why = NODE_PREFIX.sub("", why, count=1)
        names, numbers = grouped.setdefault(why, ({}, set()))
        names[what] = None
        numbers.update(rounds)

    for name in figures_for(case.suite):
        for r in case.rounds:
            if round_value(r, name) is None:
                add(round_reason(r, name) or "not measured", label(name, case.suite), [r.number])
    for number, items in gaps.items():
        for title, why in items:
            add(why, f"chart: {title}", [number])
    if not grouped:
        return ""
    every = {r.number for r in case.rounds}
    lines = []
    for why, (names, numbers) in grouped.items():
        which = "every round" if numbers == every else \
            ("round " if len(numbers) == 1 else "rounds ") + ", ".join(map(str, sorted(numbers)))
        lines.append(f"<li><b>{escape(why)}</b> ({which}): {escape(', '.join(names))}</li>")
    return f'<h3>Not measured</h3><ul class="absent">{"".join(lines)}</ul>'


def log_links(logs: Sequence[NodeLogs], number: int) -> str:
    """The round's nodes, each with links to its files (relative to report.html)."""
    rows = [log for log in logs if log.round == number]
    if not rows:
        return ""
    items = []
    for log in rows:
        links = " ".join(f'<a href="{escape(path)}">{escape(path.rsplit("/", 1)[-1])}</a>'
                         for path in log.files) or "(no files)"
        items.append(f"<li><code>{escape(log.node)}</code>: {links}</li>")
    return f'<p>Logs of every node:</p><ul class="logs">{"".join(items)}</ul>'
