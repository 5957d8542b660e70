"""The served sweep of an LLM case (FINISHED ``serving.sweep``): its points as a table and
the throughput-interactivity curve per round, output tokens/s per chip against tokens/s per
user (1000 / TPOT p50), one line per workload shape, as InferenceMAX plots it; in
``chipperf compare --html``, the curves of every compared run on one chart. The case writes the
same points as ``serving_curve.csv`` in the round's node folder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chipperf.results.compute.schema import CaseResult
from chipperf.results.render.serving import DASH, _num
from chipperf.results.render.svg import Line, line_chart

HEADER = ["round", "point", "status", "requests", "failed", "out tok/s per chip",
          "tok/s per user", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "ITL p99",
          "E2E p50", "E2E p90", "E2E p99", "goodput req/s", "out tok/J", "cost per M out tok",
          "tokens = server's /metrics"]
X_LABEL, Y_LABEL = "tokens/s per user (1000 / TPOT p50)", "output tokens/s per chip"


def sweep_of(serving: Any) -> Mapping[str, Any] | None:
    sweep = serving.get("sweep") if isinstance(serving, Mapping) else None
    return sweep if isinstance(sweep, Mapping) else None


def has_sweep(case: CaseResult) -> bool:
    return any(sweep_of(r.serving) for r in case.rounds)


def sweep_rows(case: CaseResult) -> tuple[list[str], list[list[str]]]:
    rows = []
    for r in case.rounds:
        for p in (sweep_of(r.serving) or {}).get("points", []):
            rows.append(_row(r.number, p))
    return list(HEADER), rows


def sweep_notes(case: CaseResult) -> list[str]:
    """Per round: the server's timings, the shapes (reduced or not) and how the sweep ended."""
    lines = []
    for r in case.rounds:
        sweep = sweep_of(r.serving)
        if sweep is None:
            continue
        server = sweep.get("server") or {}
        shapes = ", ".join(f"{s['name']} {s['input_tokens']}/{s['output_tokens']}"
                           + (f" (reduced; InferenceMAX: {s['inferencemax_tokens'][0]}/"
                              f"{s['inferencemax_tokens'][1]})" if s.get("reduced") else "")
                           for s in sweep.get("shapes", []))
        lines.append(f"Round {r.number}: engine {sweep.get('engine')}, healthy "
                     f"{_num(server.get('ready_s'))} s after launch, shut down in "
                     f"{_num(server.get('shutdown_s'))} s; shapes {shapes}; "
                     f"{len(sweep.get('points', []))} of {sweep.get('planned')} points run "
                     f"({sweep.get('ended')})" + _served_by(sweep) + _slo(sweep)
                     + _generator(sweep))
    return lines


def _generator(sweep: Mapping[str, Any]) -> str:
    """How often the sweep's load generator started, and its first start's timings."""
    starts = (sweep.get("load_generator") or {}).get("starts")
    if not isinstance(starts, list) or not starts or not isinstance(starts[0], Mapping):
        return ""
    first = starts[0]
    killed = sum(1 for s in starts if isinstance(s, Mapping) and s.get("killed"))
    return (f"; load generator: {len(starts)} start{'s' if len(starts) > 1 else ''}"
            + (f" ({killed} killed)" if killed else "")
            + f", the first ready {_num(first.get('ready_s'))} s after launch (vLLM imported "
              f"in {_num(first.get('import_s'))} s)")


def _served_by(sweep: Mapping[str, Any]) -> str:
    by = sweep.get("served_by")
    if not isinstance(by, Mapping):
        return ""
    return f"; served by {by.get('engine')} ({by.get('why')})"


def _slo(sweep: Mapping[str, Any]) -> str:
    slo = sweep.get("slo")
    if not isinstance(slo, Mapping):
        return ""
    if slo.get("note"):
        return f"; SLO: {slo['note']}"
    return (f"; SLO {', '.join(slo.get('limits', []))} ms met at every request of "
            f"{', '.join(slo.get('points_meeting', []))}")


def curve_svgs(case: CaseResult) -> list[str]:
    charts = []
    for r in case.rounds:
        sweep = sweep_of(r.serving)
        lines = _lines(sweep.get("points", [])) if sweep else []
        if lines:
            charts.append(line_chart(f"Round {r.number}: throughput vs interactivity", lines,
                                     X_LABEL, Y_LABEL))
    return charts


def compare_curve_svg(title: str, cases: Sequence[tuple[str, CaseResult | None]]) -> str:
    """One throughput-interactivity chart for ``chipperf compare``: a line per run (its label,
    e.g. ``#2 nvidia/H100``), shape and round, from each run's matched case; "" when no run
    has a served sweep."""
    lines = []
    for label, case in cases:
        rounds = [r for r in case.rounds if sweep_of(r.serving)] if case else []
        for r in rounds:
            suffix = f" round {r.number}" if len(rounds) > 1 else ""
            lines += [Line(f"{label} {line.label}{suffix}", line.points)
                      for line in _lines((sweep_of(r.serving) or {}).get("points", []))]
    return line_chart(f"{title}: throughput vs interactivity", lines, X_LABEL, Y_LABEL) \
        if lines else ""


def _lines(points: list[Mapping[str, Any]]) -> list[Line]:
    shapes: dict[str, list[tuple[float, float]]] = {}
    for p in points:
        x, y = p.get("tokens_per_s_per_user"), p.get("output_tokens_per_s_per_chip")
        if p.get("status") == "succeeded" and isinstance(x, (int, float)) \
                and isinstance(y, (int, float)):
            name = str(p.get("shape")) + (" (fixed rates)" if p.get("request_rate") else "")
            shapes.setdefault(name, []).append((float(x), float(y)))
    return [Line(name, sorted(xy)) for name, xy in shapes.items()]


def _row(number: int, p: Mapping[str, Any]) -> list[str]:
    def pct(name: str, part: str) -> str:
        return _num((p.get(name) or {}).get(part))
    counters = p.get("server_counters") or {}
    agree = ("yes" if counters and all(c.get("agree") for c in counters.values())
             else DASH if not counters else "no")
    status = p.get("status", "?") + (f": {p['why'].splitlines()[0]}" if p.get("why") else "")
    return [str(number), str(p.get("point")), status, _num(p.get("requests")),
            _num(p.get("failed")), _num(p.get("output_tokens_per_s_per_chip")),
            _num(p.get("tokens_per_s_per_user")), pct("ttft_ms", "p50"), pct("ttft_ms", "p99"),
            pct("tpot_ms", "p50"), pct("tpot_ms", "p99"), pct("itl_ms", "p99"),
            pct("e2el_ms", "p50"), pct("e2el_ms", "p90"), pct("e2el_ms", "p99"),
            _num(p.get("goodput_requests_per_s")), _num(p.get("output_tokens_per_joule")),
            _cost(p), agree]


def _cost(p: Mapping[str, Any]) -> str:
    cost = p.get("cost_per_million_output_tokens")
    return DASH if cost is None else f"{_num(cost)} {p.get('cost_currency', '')}".strip()
