"""The end of a round on each node, whatever ended it: its containers stopped, its files
brought home (or kept on the host, said where), the cause of a failure named (an engine
gone, a port in use, a full disk, the case's own error), its final status written.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from typing import Any

from chipperf.containers import runtime
from chipperf.errors import HostError
from chipperf.remote import HostGroup, each
from chipperf.run import causes
from chipperf.run.node import UNCOLLECTED, NodeState, RoundSettings, local_dir, write_status
from chipperf.run.verdict import check_finished, name_case_error

log = logging.getLogger("chipperf")
MONITOR_GRACE_S = 15.0   # the sidecar writes its last samples


def end_round(hosts: HostGroup, states: list[NodeState], s: RoundSettings) -> None:
    each(states, lambda st: _teardown_node(hosts, st, s), "teardown",
         key=lambda st: st.node.host, raise_errors=False)


def _teardown_node(hosts: HostGroup, st: NodeState, s: RoundSettings) -> None:
    node, local = st.node, local_dir(s, st)
    if node.host in hosts.silent:   # every call would hang: the files stay there
        _keep_on_silent_host(st, s)
        name_case_error(st, local)
        write_status(local, st.status, st.reason)
        return
    if not _stop_containers(st, local) or st.status not in ("succeeded", "running"):
        name_engine_loss(hosts, st)   # an engine stopped normally ends its containers: exit 1
    st.finish("canceled", "stopped during teardown")
    _bring_home(hosts, st, s, local)
    check_finished(st, local)
    _name_full_disk(hosts, st)
    name_port_clash(hosts, st, local)
    name_case_error(st, local)
    write_status(local, st.status, st.reason)


def _stop_containers(st: NodeState, local: Path) -> bool:
    """The node's monitor sidecar and case container stopped side by side; False when its
    engine did not let them be (the node's files are still collected)."""
    node = st.node
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            monitor = pool.submit(_stop_monitor, st.monitor, min(MONITOR_GRACE_S, st.stop_grace_s))
            if st.container is not None:
                _stop_case_container(st, local)
            monitor.result()
    except Exception as exc:  # the engine is away: the node's files are still collected
        log.error("[%s] node %d: stopping its containers failed: %s", node.host, node.node_rank, exc)
        return False
    return True


def _bring_home(hosts: HostGroup, st: NodeState, s: RoundSettings, local: Path) -> None:
    """The node's dir copied into the run dir and removed from the host; one that cannot come
    home stays there, said where (a node that succeeded fails as uncollected)."""
    node = st.node
    try:
        skipped = hosts[node.host].get_dir(node.output_dir, local)
        if skipped:
            log.warning("[%s] node %d: not copied back (not a regular file or directory): %s",
                        node.host, node.node_rank, ", ".join(skipped[:10]))
    except (HostError, OSError) as exc:
        kept = f"{node.host}:{node.output_dir}"
        st.kept_on = kept
        log.error("[%s] node %d: could not collect %s: %s; the files stay on the host: "
                  "`chipperf collect %s` brings them home when it can be reached and the "
                  "result root has room", node.host, node.node_rank, node.output_dir,
                  exc, s.run_dir)
        if st.status == "succeeded":
            st.status, st.kind = "failed", UNCOLLECTED
            st.reason = f"results could not be collected (kept at {kept}): {exc}"
    else:  # collected: the host's copy goes (the run's teardown retries what is left)
        try:
            hosts[node.host].remove_tree(node.output_dir)
        except HostError as exc:
            log.warning("[%s] node %d: %s", node.host, node.node_rank, exc)


def name_engine_loss(hosts: HostGroup, st: NodeState) -> None:
    """A host whose SSH answers and whose container engine does not: the node's failure is
    named so (chipperf.run.causes), and the host gets no later rounds (RoundOutcome.engine_gone)."""
    why = causes.engine_gone(hosts[st.node.host])
    if why is None:
        return
    st.engine_gone = why
    log.error("[%s] its container engine stopped or is gone: %s", st.node.host, why)
    if st.status in ("failed", "timeout", "starting", "running"):
        st.status, st.kind = "failed", causes.ENGINE
        st.reason = causes.engine_reason(st.node.host, why, st.reason or "its containers ended")


def name_port_clash(hosts: HostGroup, st: NodeState, local: Path) -> None:
    """A node that did not succeed and whose launcher or rank log says EADDRINUSE failed on
    a port another process holds: named so, with the holder when the host's ss says, else
    the run whose abandoned cluster lease this run took over there (chipperf.run.clusterlease);
    the host gets no later rounds (RoundOutcome.port_in_use)."""
    if st.status not in ("failed", "timeout", "canceled") or st.kind == causes.ENGINE:
        return
    found = causes.find_port_clash(local)
    if found is None:
        return
    where, clash = found
    held = None if st.node.host in hosts.silent else \
        causes.port_holder(hosts[st.node.host], clash.port)
    held = held or hosts.earlier_holders.get(st.node.host)   # what the cluster lease knows
    st.status, st.kind, st.port_in_use = "failed", causes.PORT, clash.port
    st.reason = f"{causes.port_reason(st.node.host, where, clash, held)} ({st.reason})"


FULL_KIB = 1024   # a node dir's file system with less free than this is full


def _name_full_disk(hosts: HostGroup, st: NodeState) -> None:
    """A failed node whose dir's file system on the host is full says so first: a rank or
    launcher that could not write its log dies with little to show why."""
    if st.status != "failed" or st.kind not in ("exited", ""):   # "": no FINISHED event
        return
    node = st.node
    where = str(PurePosixPath(node.output_dir).parent)   # the node dir may be removed by now
    try:
        df = hosts[node.host].run(["df", "-Pk", where], timeout=30, check=False)
    except HostError:
        return
    rows = [line.split() for line in df.stdout.splitlines()[1:] if line.strip()]
    if not df.ok or not rows or len(rows[-1]) < 6 or not rows[-1][3].isdigit():
        return
    free_kib, mount = int(rows[-1][3]), " ".join(rows[-1][5:])
    if free_kib < FULL_KIB:
        st.reason = (f"no space left under {node.output_dir} on {node.host} ({free_kib} KiB "
                     f"free on {mount}): free space under WORK_ROOT there ({st.reason})")


def _keep_on_silent_host(st: NodeState, s: RoundSettings) -> None:
    node = st.node
    st.finish("canceled", "stopped during teardown")
    st.kept_on = f"{node.host}:{node.output_dir}"
    log.error("[%s] node %d: the host does not answer: its containers and %s stay there; "
              "`chipperf collect %s` brings the files home and removes the rest once it "
              "answers again", node.host, node.node_rank, node.output_dir, s.run_dir)
    if st.status == "succeeded":
        st.status, st.kind = "failed", UNCOLLECTED
        st.reason = f"results could not be collected (kept at {st.kept_on}): the host stopped answering"


def _stop_case_container(st: NodeState, local: Path) -> None:
    if st.status in ("failed", "timeout", "running"):
        try:
            local.mkdir(parents=True, exist_ok=True)
            (local / "container.log").write_text(runtime.logs_tail(st.container, 200))
        except OSError as exc:  # the container is stopped all the same
            log.error("[%s] could not keep the container's log in %s: %s", st.node.host, local, exc)
    st.lifetime = runtime.lifetime(st.container)
    if st.lifetime.get("running", True):
        runtime.stop(st.container, st.stop_grace_s)
    else:
        runtime.remove(st.container)


def _stop_monitor(monitor: Any, grace_s: float = MONITOR_GRACE_S) -> None:
    if monitor is not None:
        runtime.stop(monitor, grace_s=grace_s)
