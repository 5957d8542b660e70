"""The LLM serving table of a case: one row per round and scenario (FINISHED ``serving``).

Scenarios: offline, single stream, and each server rate tried (``server@<rate>``), with
tokens/s, requests/s, TTFT / TPOT p50, p90, p99 (ms), the server bound and whether the rate
met it, and MLPerf LoadGen's verdict on the run (VALID, or INVALID and the checks that failed;
a record from before LoadGen ran the scenarios shows a dash); the highest rate that met the
bound is a line of its own. Pure: rows for markdown
and HTML alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chipperf.results.compute.schema import CaseResult

DASH = "—"
HEADER = ["round", "scenario", "requests", "tokens/s", "requests/s", "TTFT p50", "TTFT p90",
          "TTFT p99", "TPOT p50", "TPOT p90", "TPOT p99", "meets bound", "LoadGen"]


def has_serving(case: CaseResult) -> bool:
    return any(r.serving for r in case.rounds)


def serving_rows(case: CaseResult) -> tuple[list[str], list[list[str]]]:
    rows = []
    for r in case.rounds:
        serving = r.serving or {}
        for name in ("offline", "single_stream"):
            if isinstance(serving.get(name), Mapping):
                rows.append(_row(r.number, name.replace("_", " "), serving[name], DASH))
        server = serving.get("server")
        for rate in server.get("rates", []) if isinstance(server, Mapping) else []:
            met = "yes" if rate.get("meets_bound") else f"no: {rate.get('why_not') or '?'}"
            rows.append(_row(r.number, f"server @ {_num(rate.get('target_rate'))}/s", rate, met))
    return list(HEADER), rows


def best_rates(case: CaseResult) -> list[str]:
    """One sentence per round: the bound and the highest rate that met it."""
    lines = []
    for r in case.rounds:
        server = (r.serving or {}).get("server")
        if not isinstance(server, Mapping):
            continue
        bound = server.get("bound") or {}
        best = server.get("max_rate_meeting_bound")
        lines.append(f"Round {r.number}: bound p{bound.get('percentile', '?')} TTFT <= "
                     f"{_num(bound.get('ttft_ms'))} ms and TPOT <= {_num(bound.get('tpot_ms'))} "
                     f"ms; highest server rate meeting it: "
                     + (f"{_num(best)} requests/s" if best is not None else "none of those tried"))
    return lines


def _row(number: int, scenario: str, figures: Mapping[str, Any], met: str) -> list[str]:
    ttft, tpot = figures.get("ttft_ms") or {}, figures.get("tpot_ms") or {}
    return [str(number), scenario, _num(figures.get("requests")), _num(figures.get("tokens_per_s")),
            _num(figures.get("requests_per_s")),
            *(_num(ttft.get(p)) for p in ("p50", "p90", "p99")),
            *(_num(tpot.get(p)) for p in ("p50", "p90", "p99")), met, _verdict(figures)]


def _verdict(figures: Mapping[str, Any]) -> str:
    loadgen = figures.get("loadgen")
    if not isinstance(loadgen, Mapping) or not loadgen.get("result"):
        return DASH
    failed = loadgen.get("invalid_because") or []
    return str(loadgen["result"]) + (f": {', '.join(map(str, failed))}" if failed else "")


def _num(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return DASH
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
