"""Rounds judged again from files that came home late.

A node whose case ended well and whose files could not reach the run dir (a full or
read-only result root, a host that stopped answering) fails its round as "results could
not be collected": the round records where the files stayed (``kept_on_hosts``) and that
node's kind (``kinds``: node -> ``uncollected``). When a sweep (`chipperf collect`, `clean`
or a later `run`, chipperf.run.leftovers) brings those files home, the node is judged again by
the steps that judge every node at the end of its round (chipperf.run.verdict.check_finished,
name_case_error), and its round, case and run by theirs (verdict.round_verdict, case_status):
a round whose FINISHED arrives late counts, marked ``late``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from chipperf.results.layout import read_status, write_status
from chipperf.run.node import UNCOLLECTED
from chipperf.run.outcome import RoundOutcome, RunOutcome
from chipperf.run.verdict import (
    NO_FINISHED,
    blamed_on,
    case_status,
    check_finished,
    culprit,
    name_case_error,
    round_verdict,
)


@dataclass(frozen=True)
class NodeRef:
    host: str
    node_rank: int


@dataclass
class LateNode:
    """A node of a recorded round, as rounds.Judged: its verdict from run.json, its reason
    from its status file."""
    name: str
    node: NodeRef
    status: str
    reason: str = ""
    kind: str = ""
    written: bool = True   # its status file says its status

    @classmethod
    def recorded(cls, node_dir: Path, entry: Mapping[str, Any]) -> "LateNode":
        """The node as its round's run.json ``entry`` and its status file record it."""
        name = node_dir.name
        host, _, rank = name.rpartition("_noderank")
        ref = NodeRef(host, int(rank) if rank.isdigit() else -1)
        status, kind = entry["nodes"][name], entry.get("kinds", {}).get(name, "")
        written, reason = read_status(node_dir)
        if written != status:   # a status file the result root did not take
            return cls(name, ref, status, _recorded_reason(name, ref, kind, entry), kind, False)
        return cls(name, ref, status, reason, kind)


def _recorded_reason(name: str, ref: NodeRef, kind: str, entry: Mapping[str, Any]) -> str:
    """A node's reason from its round's record: where its files were kept (uncollected), or
    the round's reason when the round is blamed on it."""
    if kind == UNCOLLECTED:
        return f"results could not be collected (kept at {entry.get('kept_on_hosts', {}).get(name)})"
    reason = str(entry.get("reason", ""))
    return reason[len(blamed_on(ref)):] if reason.startswith(blamed_on(ref)) else ""


def rejudge(run_dir: Path, record: dict[str, Any]) -> list[str]:
    """In place on ``record`` (run.json's content, its ``late`` up to date): every round with
    uncollected nodes now home is judged again, then its case and the run. Returns one line
    per round judged again. Raises OSError when a node's status file cannot be written."""
    lines = []
    late = record.get("late", {})
    for dir_name, case in record.get("cases", {}).items():
        judged = [line for entry in case.get("rounds", [])
                  if (line := _rejudge_round(run_dir, dir_name, entry, late))]
        if judged:
            _case_again(case)
            lines += judged
    if lines:
        _run_again(run_dir, record)
    return lines


def _rejudge_round(run_dir: Path, dir_name: str, entry: dict[str, Any],
                   late: Mapping[str, Any]) -> str | None:
    rel = f"{dir_name}/round{entry['number']}"
    home = [n for n in entry["nodes"] if _kept_then_home(n, entry, f"{rel}/{n}" in late)]
    nodes = [LateNode.recorded(run_dir / rel / name, entry) for name in entry["nodes"]]
    for node in nodes:
        local = run_dir / rel / node.name
        if node.name in home:
            _judge_home(node, local, entry, run_dir / rel)
        elif f"{rel}/{node.name}" in late and not node.written:   # the run could not write it
            write_status(local, node.status, node.reason)
    if not home:
        return None
    before = entry["status"]
    if before != "canceled" and not _still_blamed(culprit(nodes), home, entry["reason"]):
        entry["status"], entry["reason"] = round_verdict(nodes)
    entry["late"] = True
    return f"{rel}: {before} -> {entry['status']} (judged again from its files, which came " \
           f"home late: {', '.join(home)})"


def _kept_then_home(name: str, entry: Mapping[str, Any], came_home: bool) -> bool:
    """Whether node ``name``'s files stayed on its host at the round's end and came home
    since: a node that ended well but could not be collected, or one on a host that was
    lost (cut off while its case ran on: the files say how the case ended)."""
    kind = entry.get("kinds", {}).get(name, "")
    lost = name in entry.get("kept_on_hosts", {}) and \
        name.rpartition("_noderank")[0] in entry.get("lost_hosts", ())
    return came_home and (kind == UNCOLLECTED or lost)


def _judge_home(node: LateNode, local: Path, entry: dict[str, Any], round_dir: Path) -> None:
    """A node judged from its files now in ``local`` as at its round's end (one that ended
    well; a lost host's node as its files say: it counts when rank 0 printed FINISHED); its
    round ``entry`` updated (no longer kept on its host)."""
    lost = node.kind != UNCOLLECTED
    node.status, node.reason, node.kind = "succeeded", "", ""
    if not lost:
        check_finished(node, local)
    elif why := _rank0_verdict(round_dir, entry):   # no FINISHED, or a sweep that lost points
        node.status, node.reason = "failed", why if why != NO_FINISHED else (
            "its host was lost, and the files that came home hold no FINISHED PerfLog event "
            "of rank 0")
    name_case_error(node, local)
    write_status(local, node.status, node.reason)
    entry["nodes"][node.name] = node.status
    for key in ("kinds", "kept_on_hosts"):
        entry.get(key, {}).pop(node.name, None)
        if key in entry and not entry[key]:
            del entry[key]


def _rank0_verdict(round_dir: Path, entry: Mapping[str, Any]) -> str:
    """'' when the round's node rank 0 (global rank 0) logged a whole FINISHED in its files
    here; else why not (verdict.NO_FINISHED, or a served sweep's lost points)."""
    first = next((n for n in entry["nodes"] if n.endswith("_noderank0")), None)
    if first is None:
        return NO_FINISHED
    probe = LateNode(first, NodeRef("", 0), "succeeded")
    check_finished(probe, round_dir / first)
    return probe.reason if probe.status != "succeeded" else ""


def _still_blamed(blamed: LateNode | None, home: list[str], reason: str) -> bool:
    """Whether the node the round was blamed on, not one that came home, still is: its
    recorded reason stands (its status file may not have reached the run dir)."""
    return blamed is not None and blamed.name not in home and reason.startswith(blamed_on(blamed.node))


def _case_again(case: dict[str, Any]) -> None:
    """The case's status from its rounds, as at the end of the case; a canceled case keeps
    its own, and one whose later rounds were not started stays failed, saying so."""
    if case.get("status") == "canceled":
        return
    status, reason = case_status([RoundOutcome.from_dict(r) for r in case.get("rounds", [])])
    skipped = case.get("skipped_rounds")
    if skipped and status == "succeeded":
        status, reason = "failed", (f"round(s) {', '.join(map(str, skipped))} not started: "
                                    f"{case.get('skipped_because', '')}")
    case["status"], case["reason"] = status, reason


def _run_again(run_dir: Path, record: dict[str, Any]) -> None:
    """The run's status from its cases, as at the run's end (outcome.RunOutcome.ok); a run
    that ended on an error or was canceled keeps its own."""
    if record.get("status") not in ("succeeded", "failed") or record.get("error"):
        return
    cases = {key: (c.get("status", ""), c.get("reason", ""))
             for key, c in record.get("cases", {}).items()}
    record["status"] = "succeeded" if RunOutcome(run_dir, cases).ok else "failed"


def list_unrecorded_rounds(run_dir: Path, record: dict[str, Any], why: str) -> list[str]:
    """In place on ``record``: each round dir a case has on disk that its ``rounds`` does not
    list (the master ended mid-round, before it recorded the round) listed as canceled,
    ``why`` as its reason, its nodes as their status files say (a node without one:
    canceled, its file written), its times those of its files. Returns the rounds listed."""
    listed = []
    for dir_name, case in record.get("cases", {}).items():
        rounds = case.setdefault("rounds", [])
        known = {r.get("number") for r in rounds if isinstance(r, dict)}
        for round_dir in sorted((run_dir / dir_name).glob("round*"), key=_round_number):
            number = _round_number(round_dir)
            if number > 0 and number not in known and round_dir.is_dir():
                rounds.append(_unrecorded_round(round_dir, number, why))
                listed.append(f"{dir_name}/{round_dir.name}")
        rounds.sort(key=lambda r: r.get("number", 0))
    return listed


def _round_number(round_dir: Path) -> int:
    digits = round_dir.name[len("round"):]
    return int(digits) if digits.isdigit() else 0


def _unrecorded_round(round_dir: Path, number: int, why: str) -> dict[str, Any]:
    nodes = {}
    for node_dir in sorted(p for p in round_dir.glob("*_noderank*") if p.is_dir()):
        status, _ = read_status(node_dir)
        if not status:
            status = "canceled"
            write_status(node_dir, status, why)
        nodes[node_dir.name] = status
    times = [p.stat().st_mtime for p in round_dir.rglob("*")] or [round_dir.stat().st_mtime]
    return RoundOutcome(number, "canceled", why, int(min(times) * 1000), int(max(times) * 1000),
                        nodes).to_dict()
