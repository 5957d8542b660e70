"""How a node, a round and a case are judged: the same steps at a round's end
(chipperf.run.roundend) and when a node's files come home late (chipperf.run.late).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence, TypeVar

from chipperf.run import causes
from chipperf.run.outcome import RoundOutcome
from chipperf_runtime.perflog import case_error, parse_lines


class NodeOf(Protocol):
    """Where a judged node ran: a NodePlan, or chipperf.run.late's NodeRef."""

    @property
    def host(self) -> str: ...
    @property
    def node_rank(self) -> int: ...


class Judged(Protocol):
    """What judging a node reads and sets: a NodeState in a run, chipperf.run.late's LateNode
    when its files come home later."""
    status: str
    reason: str
    kind: str

    @property
    def node(self) -> NodeOf: ...


J = TypeVar("J", bound=Judged)
NO_FINISHED = "exited 0 but rank 0 printed no FINISHED PerfLog event"


def check_finished(st: Judged, local: Path) -> None:
    """A node that ended well fails when it is global rank 0's and its log in ``local`` has
    no FINISHED event, or one whose served sweep lost points (``served_failures``)."""
    if st.status != "succeeded" or st.node.node_rank != 0:
        return
    log_file = local / "rank0.out.log"
    text = log_file.read_text(errors="replace") if log_file.exists() else ""
    events, _ = parse_lines(text.splitlines())
    finished = next((e for e in events if e.name == "FINISHED"), None)
    lost = served_failures(finished.value) if finished is not None else ""
    if finished is None:
        st.status, st.reason = "failed", NO_FINISHED
    elif lost:
        st.status, st.reason = "failed", lost


def served_failures(finished: Mapping[str, Any]) -> str:
    """Why a served sweep (FINISHED ``serving.sweep``) is not whole: its failed points named,
    each with the first line of its reason, and the planned points it never ran; '' when every
    planned point succeeded (or the case served no sweep). The measured points stay in the
    record: the round fails, its figures are kept."""
    serving = finished.get("serving")
    sweep = serving.get("sweep") if isinstance(serving, Mapping) else None
    if not isinstance(sweep, Mapping) or not isinstance(sweep.get("points"), list):
        return ""
    points = [p for p in sweep["points"] if isinstance(p, Mapping)]
    failed = [p for p in points if p.get("status") != "succeeded"]
    planned = sweep.get("planned")
    unrun = planned - len(points) if isinstance(planned, int) and planned > len(points) else 0
    if not failed and not unrun:
        return ""
    named = "; ".join(f"{p.get('point', '?')} ({_first_line(p.get('why')) or 'failed'})"
                      for p in failed)
    parts = [f"served sweep: {len(failed)} point(s) failed: {named}"] if failed else \
        ["served sweep"]
    if unrun:
        parts.append(f"{unrun} planned point(s) not run ({sweep.get('ended') or 'sweep ended'})")
    kept = len(points) - len(failed)
    return ", ".join(parts) + f"; the {kept} measured point(s) are kept"


def _first_line(text: Any) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0].rstrip(": ") if lines else ""


def name_case_error(st: Judged, local: Path) -> None:
    """A failed node's reason leads with the error its case printed (e.g. the vendor's device
    cannot be seen), when a rank printed one."""
    if st.status != "failed":
        return
    for log_file in sorted(local.glob("rank*.out.log")):
        message = case_error(log_file.read_text(errors="replace").splitlines()[-50:])
        if message:
            st.reason = f"{log_file.name}: {message} ({st.reason})"
            return


def round_verdict(states: Sequence[Judged], canceled: bool = False) -> tuple[str, str]:
    """(status, reason) of a round from its nodes' verdicts: that of the node it is blamed
    on, or succeeded."""
    named = culprit(states)
    if named is None:
        return "succeeded", ""
    status = "canceled" if canceled else named.status
    return status, f"{blamed_on(named.node)}{named.reason}"


def blamed_on(node: NodeOf) -> str:
    """How the reason of a round blamed on ``node`` starts."""
    return f"node {node.node_rank} ({node.host}): "


def case_status(outcomes: Sequence[RoundOutcome]) -> tuple[str, str]:
    """(status, reason) of a case from its rounds' outcomes: the first round that did not
    succeed decides."""
    bad = next((r for r in outcomes if r.status != "succeeded"), None)
    if not outcomes:
        return "failed", "no round ran"
    return ("succeeded", "") if bad is None else (bad.status, f"round {bad.number}: {bad.reason}")


def culprit(states: Sequence[J]) -> J | None:
    """The node a round that did not succeed is blamed on: the first that failed or timed
    out (one whose cause is named, a port in use or an engine gone, before the others); with
    none (a canceled round), the first that did not succeed; never one that did."""
    bad = [st for st in states if st.status not in ("succeeded", "canceled")]
    named = [st for st in bad if st.kind in (causes.PORT, causes.ENGINE)]   # the cause first
    return next(iter(named or bad or [st for st in states if st.status != "succeeded"]), None)
