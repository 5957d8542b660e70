"""The served sweeps of the leaderboard's rows, read back from the store's ``serving_points``
(schema version 4) in the shape FINISHED writes them, so that the report's drawing code
(chipperf.results.render.servecurve) draws them: one chart per workload fingerprint with each
row's newest run as a Pareto front, and the fronts' points as a table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from chipperf.store import db

Points = tuple[Mapping[str, Any], ...]
PERCENTILES = ("p50", "p90", "p99")


def points_of(conn: Connection, case_pks: Iterable[int]) -> dict[int, Points]:
    """case pk -> its served points (every round, in the order stored); cases without any
    are absent."""
    wanted = sorted(set(case_pks))
    if not wanted:
        return {}
    t = db.serving_points
    found: dict[int, list[Mapping[str, Any]]] = {}
    for row in conn.execute(sa.select(t).where(t.c.case_pk.in_(wanted)).order_by(t.c.id)):
        found.setdefault(row.case_pk, []).append(as_point(dict(row._mapping)))
    return {pk: tuple(points) for pk, points in found.items()}


def as_point(row: Mapping[str, Any]) -> dict[str, Any]:
    """A ``serving_points`` row as FINISHED's point (latencies nested per measure)."""
    point = {k: v for k, v in row.items() if k not in ("id", "case_pk")
             and not k.endswith("_ms")}
    for name in ("ttft", "tpot"):
        point[f"{name}_ms"] = {p: row[f"{name}_{p}_ms"] for p in PERCENTILES}
    return point


def runs_of(label: str, points: Sequence[Mapping[str, Any]]
            ) -> list[tuple[str, Sequence[Mapping[str, Any]]]]:
    """(label, points) per round of one run, the engine that served in the label and the
    round when the run has several."""
    rounds: dict[int, list[Mapping[str, Any]]] = {}
    for p in points:
        rounds.setdefault(int(p.get("round") or 0), []).append(p)
    out: list[tuple[str, Sequence[Mapping[str, Any]]]] = []
    for number, group in sorted(rounds.items()):
        engine = next((str(p["engine"]) for p in group if p.get("engine")), "")
        suffix = f" round {number}" if len(rounds) > 1 else ""
        out.append((" ".join(x for x in (label, engine) if x) + suffix, group))
    return out
