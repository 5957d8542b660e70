"""One round from its nodes: status, and power / energy / memory over all nodes.

A round-level figure needs every node's figure: a sum or average over the nodes
that happened to report would look like a measurement of the whole round and is
not one, so it is absent, naming the node that lacks it and why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chipperf.results.compute.schema import NodeResult, RoundResult

FAILED = ("failed", "timeout", "canceled")
UNFINISHED = ("running", "starting")


def round_status(entry: Mapping[str, Any], nodes: Sequence[NodeResult], log: Any,
                 fields: Mapping[str, Any]) -> tuple[str | None, str]:
    """run.json's verdict; else the nodes' status files; else (FlagPerf) whether rank 0
    logged FINISHED."""
    status, reason = entry.get("status"), entry.get("reason")
    if isinstance(status, str) and status:
        return status, reason if isinstance(reason, str) else ""
    statuses = [n.status for n in nodes if n.status]
    for bad in FAILED + UNFINISHED:
        if bad in statuses:
            first = next(n for n in nodes if n.status == bad)
            return bad, f"{first.name}: {first.reason}" if first.reason else first.name
    if statuses and len(statuses) == len(nodes) and set(statuses) == {"succeeded"}:
        return "succeeded", ""
    if not statuses and log is not None and log.finished is not None:
        return "succeeded", "no status files (FlagPerf): rank 0 logged FINISHED"
    if not statuses and log is not None and getattr(log, "finish_info", None):
        return "succeeded", "no status files (FlagPerf inference): the case logged Finish Info"
    if not statuses and fields.get("mfu_reported") is not None:
        return "succeeded", ("no status files (FlagPerf): rank 0 printed the LLM case's summary "
                             "(System tokens per second, MFU)")
    if not statuses:
        return "failed", "no status files and no FINISHED from rank 0"
    return None, "node statuses do not agree: " + ", ".join(sorted(set(statuses)))


def case_status(rounds: Sequence[RoundResult]) -> str | None:
    statuses = {r.status for r in rounds}
    if not rounds:
        return None
    if statuses == {"succeeded"}:
        return "succeeded"
    for bad in FAILED + UNFINISHED:
        if bad in statuses:
            return bad
    return None


# ---------------------------------------------------------------- combining nodes


def combine_nodes(nodes: Sequence[NodeResult]) -> tuple[dict[str, Any], dict[str, str]]:
    out: dict[str, Any] = {}
    reasons: dict[str, str] = {}

    def put(name: str, attr: str, how: Callable[[list[Any], list[NodeResult]], Any]) -> None:
        values, why = _every(nodes, attr)
        if why:
            reasons[name] = why
        else:
            out[name] = how(values, list(nodes))

    put("avg_power_w_per_node", "avg_power_w", lambda v, n: sum(v) / len(v))
    put("peak_power_w_per_node", "peak_power_w", lambda v, n: max(v))
    put("energy_j", "energy_j", lambda v, n: sum(v))
    put("cpu_energy_j", "cpu_energy_j", lambda v, n: sum(v))
    put("accel_energy_j", "accel_energy_j", lambda v, n: sum(v))
    put("avg_power_w_per_chip", "accel_avg_power_w_per_chip", _per_chip)
    put("peak_power_w_per_chip", "accel_peak_power_w_per_chip", lambda v, n: max(v))
    put("peak_accel_memory_bytes", "peak_accel_memory_bytes", lambda v, n: max(v))
    put("avg_accel_util_pct", "avg_accel_util_pct", _per_chip)
    put("avg_cpu_util_pct", "avg_cpu_util_pct", lambda v, n: sum(v) / len(v))
    return out, reasons


def _every(nodes: Sequence[NodeResult], attr: str) -> tuple[list[Any], str]:
    if not nodes:
        return [], "no node dirs"
    values = [getattr(n, attr) for n in nodes]
    for node, value in zip(nodes, values):
        if value is None:
            return [], f"{node.name}: {node.reasons.get(attr, 'not measured')}"
    return values, ""


def _per_chip(values: list[float], nodes: list[NodeResult]) -> float:
    """Average over every chip: nodes weighted by how many chips each has."""
    weights = [n.chips or 1 for n in nodes]
    return sum(v * w for v, w in zip(values, weights)) / sum(weights)


def per_joule(work: int | None, fields: Mapping[str, Any],
              reasons: dict[str, str]) -> dict[str, Any]:
    """Work done in the timed window (``window_work``) per joule over that window."""
    out: dict[str, Any] = {}
    for name, energy in (("work_per_joule", "energy_j"), ("work_per_joule_accel", "accel_energy_j")):
        joules = fields.get(energy)
        if work and joules:
            out[name] = work / joules
        else:
            reasons[name] = (reasons.get("window_work") or "no work_done") if not work \
                else f"no {energy}: {reasons.get(energy, 'not measured')}"
    return out
