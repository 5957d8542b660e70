"""The served sweep of an LLM case (FINISHED ``serving.sweep``): its points as a table and
the throughput-interactivity curve per round, output tokens/s per chip against tokens/s per
user (1000 / TPOT p50), one line per workload shape, as InferenceMAX plots it: the line joins
the Pareto front (the points no other point beats on both axes, filled dots), the points it
dominates are hollow dots; in ``chipperf compare --html`` and the store's leaderboard, the
curves of every compared run on one chart, with a table of each run's front (tokens per joule
and cost per million tokens where the run measured them). The case writes the same points as
``serving_curve.csv`` in the round's node folder.
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
FRONT_NOTE = ("Each line joins a run's Pareto front (filled dots: no other point of the run "
              "has both more tokens/s per user and more output tokens/s per chip); hollow dots "
              "are the points it dominates. The table lists the fronts' points; times in ms; "
              "a dash where the run did not measure it (energy) or set no price (cost).")
FRONT_HEADER = ["curve", "shape", "point", "tok/s per user", "out tok/s per chip", "TTFT p50",
                "TPOT p50", "goodput req/s", "out tok/J", "cost per M out tok"]


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
                     f"{_seconds(server.get('shutdown_s'))}; shapes {shapes}; "
                     f"{len(sweep.get('points', []))} of {sweep.get('planned')} points run "
                     f"({sweep.get('ended')})" + _served_by(sweep) + _slo(sweep)
                     + _generator(sweep))
        lines += [f"Round {r.number}, point {p.get('point')}: {p.get('status')}: "
                  f"{_first_line(p['why'])}" for p in sweep.get("points", []) if p.get("why")]
    return lines


def _first_line(why: Any) -> str:
    """A point's reason in one line: its first, without the " ends:" that introduced the
    log's last lines (the whole reason is in FINISHED and summary.json)."""
    return str(why).splitlines()[0].removesuffix(" ends:")


def _seconds(value: Any) -> str:
    """A duration in seconds as the notes print it: under 10 ms as "< 0.01 s" (a server that
    had already exited), not in powers of ten."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 0.01:
        return "< 0.01 s"
    return f"{_num(value)} s"


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


def sweep_runs(cases: Sequence[tuple[str, CaseResult | None]]
               ) -> list[tuple[str, Sequence[Mapping[str, Any]]]]:
    """(label, points) per run and round of the cases that have a served sweep; the round is
    in the label when a case has several."""
    runs: list[tuple[str, Sequence[Mapping[str, Any]]]] = []
    for label, case in cases:
        rounds = [r for r in case.rounds if sweep_of(r.serving)] if case else []
        runs += [(label + (f" round {r.number}" if len(rounds) > 1 else ""),
                  (sweep_of(r.serving) or {}).get("points", [])) for r in rounds]
    return runs


def runs_curve_svg(title: str, runs: Sequence[tuple[str, Sequence[Mapping[str, Any]]]]) -> str:
    """One chart of several runs' points (each a FINISHED point, or one the store gives back
    in its shape), a front per run and shape; "" when no run has a measured point."""
    lines = [Line(f"{label} {line.label}", line.points, True, line.others)
             for label, points in runs for line in _lines(points)]
    return line_chart(f"{title}: throughput vs interactivity", lines, X_LABEL, Y_LABEL) \
        if lines else ""


def front_rows(runs: Sequence[tuple[str, Sequence[Mapping[str, Any]]]]) -> list[list[str]]:
    """FRONT_HEADER's rows: each run's Pareto-front points, per shape, by interactivity."""
    rows = []
    for label, points in runs:
        for name, group in _by_line(points).items():
            front, _ = pareto_front([_xy(p) for p in group])
            at = {_xy(p): p for p in reversed(group)}      # the first point at each (x, y)
            rows += [_front_row(label, name, at[xy]) for xy in front]
    return rows


def _front_row(label: str, line: str, p: Mapping[str, Any]) -> list[str]:
    x, y = _xy(p)
    return [label, line, str(p.get("point")), _num(x), _num(y),
            _num((p.get("ttft_ms") or {}).get("p50")), _num((p.get("tpot_ms") or {}).get("p50")),
            _num(p.get("goodput_requests_per_s")), _num(p.get("output_tokens_per_joule")),
            _cost(p)]


def pareto_front(xy: Sequence[tuple[float, float]]
                 ) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(the points no other point matches or beats on both axes, by x; the others): the best
    throughput per chip a run reached at each level of interactivity."""
    front = [p for p in xy if not any(q != p and q[0] >= p[0] and q[1] >= p[1] for q in xy)]
    front = sorted(set(front))
    return front, sorted(p for p in xy if p not in front)


def _lines(points: Sequence[Mapping[str, Any]]) -> list[Line]:
    lines = []
    for name, group in _by_line(points).items():
        front, dominated = pareto_front([_xy(p) for p in group])
        lines.append(Line(name, front, True, dominated))
    return lines


def _by_line(points: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """The measured points (succeeded, with both axes) by line: shape, fixed rates apart."""
    shapes: dict[str, list[Mapping[str, Any]]] = {}
    for p in points:
        x, y = p.get("tokens_per_s_per_user"), p.get("output_tokens_per_s_per_chip")
        if p.get("status") == "succeeded" and isinstance(x, (int, float)) \
                and isinstance(y, (int, float)):
            name = str(p.get("shape")) + (" (fixed rates)" if p.get("request_rate") else "")
            shapes.setdefault(name, []).append(p)
    return shapes


def _xy(p: Mapping[str, Any]) -> tuple[float, float]:
    return float(p["tokens_per_s_per_user"]), float(p["output_tokens_per_s_per_chip"])


def _row(number: int, p: Mapping[str, Any]) -> list[str]:
    def pct(name: str, part: str) -> str:
        return _num((p.get(name) or {}).get(part))
    counters = p.get("server_counters") or {}
    agree = ("yes" if counters and all(c.get("agree") for c in counters.values())
             else DASH if not counters else "no")
    status = p.get("status", "?") + (" (why: below)" if p.get("why") else "")
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
