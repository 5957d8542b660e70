"""One round of one case on its nodes: start, wait with a deadline, collect, tear down.

Whatever happens (success, a crashed or vanished rank, timeout, Ctrl-C), every
container the round started is stopped and removed, every node's files are
copied back and every node dir gets its final ``status``. The steps live one level down:
the node's state (chipperf.run.node), the wait (roundwait), each node's end (roundend),
the verdicts (verdict) and what the round came to (outcome).
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from chipperf.containers import runtime
from chipperf.errors import HostError, failure, interruption, log_failure
from chipperf.plan import CasePlan, RoundPlan
from chipperf.remote import HostGroup, each
from chipperf.run import causes
from chipperf.run.node import UNCOLLECTED, NodeState, RoundSettings, local_dir, write_status
from chipperf.run.outcome import RoundOutcome, node_times
from chipperf.run.roundend import end_round, name_engine_loss, name_port_clash
from chipperf.run.roundwait import PROGRESS_EVERY_S, wait_round
from chipperf.run.verdict import (
    Judged,
    NodeOf,
    blamed_on,
    case_status,
    check_finished,
    culprit,
    name_case_error,
    round_verdict,
)

# what other modules and tests import from here, from where it now lives
__all__ = ["PROGRESS_EVERY_S", "UNCOLLECTED", "Judged", "NodeOf", "NodeState", "RoundOutcome",
           "RoundSettings", "blamed_on", "case_status", "check_finished", "culprit",
           "name_case_error", "name_engine_loss", "name_port_clash", "node_times",
           "round_verdict", "run_round", "write_status"]

log = logging.getLogger("chipperf")


def run_round(hosts: HostGroup, case: CasePlan, rnd: RoundPlan, s: RoundSettings) -> RoundOutcome:
    states = [NodeState(n) for n in rnd.nodes]
    started = int(time.time() * 1000)
    for st in states:
        write_status(local_dir(s, st), "starting")
    canceled = False
    interrupted: BaseException | None = None
    try:
        each(states, lambda st: _start_node(hosts, st, s), "start containers",
             key=lambda st: st.node.host, raise_errors=False)
        failed = [st for st in states if st.status == "failed"]
        if not failed:
            for st in states:
                write_status(local_dir(s, st), "running")
            wait_round(hosts, case, rnd, states, s.lost_after_s, s.suite, s.hold)
        else:
            for st in states:
                st.finish("canceled", f"not run: node {failed[0].node.node_rank} failed to start")
    except KeyboardInterrupt as exc:
        canceled, interrupted = True, exc
        for st in states:
            st.finish("canceled", interruption(exc))
        raise
    finally:
        end_round(hosts, states, s)
        outcome = _outcome(rnd, states, started, canceled)
        if interrupted is not None:  # the caller records the canceled round from the exception
            interrupted.round_outcome = outcome  # type: ignore[attr-defined]
    return outcome


def _start_node(hosts: HostGroup, st: NodeState, s: RoundSettings) -> None:
    """Make the node dir, then start the monitor sidecar and the case container side by side:
    the plan's specs, with the built image and the sensors this host has."""
    node, host = st.node, hosts[st.node.host]
    try:
        client = host.docker()
        host.makedirs(node.output_dir)
        with ThreadPoolExecutor(max_workers=1) as pool:
            monitor = pool.submit(_start_monitor, client, st, s)
            try:
                st.container = runtime.start(client, node.case_spec.tagged(s.image), node.host)
            finally:
                st.monitor = monitor.result()
        st.status = "running"
        log.info("[%s] node %d: started %s", node.host, node.node_rank, node.container)
    except Exception as exc:
        kind, reason = failure(exc, f"starting node {node.node_rank}")
        st.status, st.reason, st.kind, st.error = "failed", reason, kind, exc
        log_failure(f"[{node.host}] node {node.node_rank}", kind, reason, exc)


def _start_monitor(client: Any, st: NodeState, s: RoundSettings) -> Any:
    node = st.node
    spec = node.monitor_spec.tagged(s.image).on_host(s.sensors.get(node.host, frozenset()))
    try:
        return runtime.start(client, spec, node.host)
    except HostError as exc:  # the round goes on without telemetry; the gap is recorded
        log.warning("[%s] node %d: monitor sidecar did not start: %s", node.host, node.node_rank, exc)
        return None


def _outcome(rnd: RoundPlan, states: list[NodeState], started: int, canceled: bool) -> RoundOutcome:
    nodes = {Path(st.node.result_rel).name: st.status for st in states}
    containers = {Path(st.node.result_rel).name: st.lifetime for st in states}
    status, reason = round_verdict(states, canceled)
    lost = tuple(dict.fromkeys(st.node.host for st in states if st.kind == "unreachable"))
    kept = {Path(st.node.result_rel).name: st.kept_on for st in states if st.kept_on}
    gone = tuple(dict.fromkeys(st.node.host for st in states if st.engine_gone))
    taken = {st.node.host: st.port_in_use for st in states if st.kind == causes.PORT}
    kinds = {Path(st.node.result_rel).name: st.kind for st in states if st.kind}
    return RoundOutcome(rnd.number, status, reason, started, int(time.time() * 1000), nodes,
                        containers, lost, kept, gone, taken, kinds)
