"""One round of one case on its nodes: start, wait with a deadline, collect, tear down.

Whatever happens (success, a crashed or vanished rank, timeout, Ctrl-C), every
container the round started is stopped and removed, every node's files are
copied back and every node dir gets its final ``status``.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Mapping, Protocol, Sequence, TypeVar

from chipperf.containers import runtime
from chipperf.errors import HostError, failure, interruption, log_failure
from chipperf.plan import CasePlan, NodePlan, RoundPlan
from chipperf.remote import HostGroup, each
from chipperf.remote.liveness import Liveness, silence_error
from chipperf.results import layout
from chipperf.run import causes
from chipperf.suites import get_suite
from chipperf_runtime.perflog import case_error, parse_lines

log = logging.getLogger("chipperf")
PROGRESS_EVERY_S = 20.0
# NodeState.kind of a node whose case ended well and whose files did not reach the run dir
# (a full or read-only result root, a host that stopped answering): they stay on the host,
# and chipperf.run.late judges the node again when `chipperf collect` brings them home
UNCOLLECTED = "uncollected"


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


@dataclass(frozen=True)
class RoundSettings:
    run_dir: Path
    image: str                                  # the built tag of the case's image
    sensors: Mapping[str, frozenset[str]]       # host -> the sensor paths it has (preflight)
    lost_after_s: float = 60.0                  # a round's host silent this long is lost
    suite: str = "training"                     # progress lines speak the suite's words


@dataclass
class NodeState:
    node: NodePlan
    status: str = "starting"
    reason: str = ""
    kind: str = ""                      # of a failure: exited, unreachable, timeout, internal
    error: BaseException | None = None  # the exception behind it, kept for --debug and run.log
    kept_on: str = ""                   # host:dir where its files stayed (not collected)
    engine_gone: str = ""               # why its host's container engine no longer answers
    port_in_use: int | None = None      # the port a log said was taken (kind PORT; None: unsaid)
    container: Any = None
    monitor: Any = None
    lifetime: dict[str, Any] = field(default_factory=dict)

    def finish(self, status: str, reason: str = "", kind: str = "") -> None:
        if self.status in ("starting", "running"):
            self.status, self.reason, self.kind = status, reason, kind


@dataclass
class RoundOutcome:
    number: int
    status: str
    reason: str
    started_ms: int
    finished_ms: int
    nodes: dict[str, str] = field(default_factory=dict)
    containers: dict[str, dict[str, Any]] = field(default_factory=dict)
    lost_hosts: tuple[str, ...] = ()    # hosts whose node ended because they could not be reached
    kept_on_hosts: dict[str, str] = field(default_factory=dict)  # node -> host:dir not collected
    engine_gone: tuple[str, ...] = ()   # hosts whose container engine stopped or went away
    port_in_use: dict[str, int | None] = field(default_factory=dict)  # host -> port taken there
    kinds: dict[str, str] = field(default_factory=dict)  # node -> kind of its failure, if any

    def to_dict(self) -> dict[str, Any]:
        entry = {"number": self.number, "status": self.status, "reason": self.reason,
                 "started_ms": self.started_ms, "finished_ms": self.finished_ms,
                 "nodes": self.nodes, "containers": self.containers,
                 "node_times": node_times(self.started_ms, self.containers)}
        if self.lost_hosts:
            entry["lost_hosts"] = list(self.lost_hosts)
        if self.kept_on_hosts:
            entry["kept_on_hosts"] = dict(self.kept_on_hosts)
        if self.engine_gone:
            entry["engine_gone"] = list(self.engine_gone)
        if self.port_in_use:
            entry["port_in_use"] = dict(self.port_in_use)
        if self.kinds:
            entry["kinds"] = dict(self.kinds)
        return entry

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> "RoundOutcome":
        """A round as run.json records it (to_dict's inverse)."""
        return cls(entry["number"], entry["status"], entry.get("reason", ""),
                   entry.get("started_ms", 0), entry.get("finished_ms", 0),
                   dict(entry.get("nodes", {})), dict(entry.get("containers", {})),
                   tuple(entry.get("lost_hosts", ())), dict(entry.get("kept_on_hosts", {})),
                   tuple(entry.get("engine_gone", ())),
                   {host: port for host, port in entry.get("port_in_use", {}).items()},
                   dict(entry.get("kinds", {})))


def node_times(round_started_ms: int, containers: Mapping[str, Mapping[str, Any]]
               ) -> dict[str, dict[str, float | None]]:
    """Per node, seconds from the round's start to its case container's start and end, and
    the end's lag behind the first node to end: in a synchronous round every node waits
    for the slowest, so a slow host shows as the node that starts and ends last."""
    def since(ms: Any) -> float | None:
        return round((ms - round_started_ms) / 1000, 2) if isinstance(ms, int) else None

    ends = [life["finished_ms"] for life in containers.values()
            if isinstance(life.get("finished_ms"), int)]
    return {node: {"start_s": since(life.get("started_ms")),
                   "end_s": since(life.get("finished_ms")),
                   "end_lag_s": (round((life["finished_ms"] - min(ends)) / 1000, 2)
                                 if isinstance(life.get("finished_ms"), int) else None)}
            for node, life in containers.items()}


def run_round(hosts: HostGroup, case: CasePlan, rnd: RoundPlan, s: RoundSettings) -> RoundOutcome:
    states = [NodeState(n) for n in rnd.nodes]
    started = int(time.time() * 1000)
    for st in states:
        write_status(_local(s, st), "starting")
    canceled = False
    interrupted: BaseException | None = None
    try:
        each(states, lambda st: _start_node(hosts, st, s), "start containers",
             key=lambda st: st.node.host, raise_errors=False)
        failed = [st for st in states if st.status == "failed"]
        if not failed:
            for st in states:
                write_status(_local(s, st), "running")
            _wait(hosts, case, rnd, states, s.lost_after_s, s.suite)
        else:
            for st in states:
                st.finish("canceled", f"not run: node {failed[0].node.node_rank} failed to start")
    except KeyboardInterrupt as exc:
        canceled, interrupted = True, exc
        for st in states:
            st.finish("canceled", interruption(exc))
        raise
    finally:
        _teardown(hosts, states, s)
        outcome = _outcome(rnd, states, started, canceled)
        if interrupted is not None:  # the caller records the canceled round from the exception
            interrupted.round_outcome = outcome  # type: ignore[attr-defined]
    return outcome


def write_status(local: Path, status: str, reason: str = "") -> None:
    """The node dir's status file; a result root that filled up is said, not raised: the
    node's files stay on its host (see _teardown_node)."""
    try:
        layout.write_status(local, status, reason)
    except OSError as exc:
        log.error("could not write %s/status (%s): the result root is full or unusable", local, exc)


def _local(s: RoundSettings, st: NodeState) -> Path:
    return s.run_dir / st.node.result_rel


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


def _wait(hosts: HostGroup, case: CasePlan, rnd: RoundPlan, states: list[NodeState],
          lost_after_s: float, suite: str = "training") -> None:
    deadline = time.monotonic() + rnd.timeout_s
    done: "queue.Queue[tuple[NodeState, int | None, BaseException | None]]" = queue.Queue()
    for st in states:
        threading.Thread(target=_waiter, args=(st, deadline, done), daemon=True).start()
    pending = len(states)
    next_progress = time.monotonic() + PROGRESS_EVERY_S
    round_hosts = [hosts[name] for name in dict.fromkeys(st.node.host for st in states)]
    with Liveness(round_hosts, lost_after_s) as liveness:
        while pending:
            now = time.monotonic()
            if now >= deadline:
                for st in states:
                    st.finish("timeout", f"still running after the round deadline of "
                                         f"{rnd.timeout_s:.0f} s", "timeout")
                log.error("case %s round %d: timed out after %.0f s", case.key, rnd.number,
                          rnd.timeout_s)
                return
            lost = _silent_nodes(hosts, liveness, states)
            error: BaseException | None
            if lost:
                st, code, error = lost[0]
            else:
                try:
                    st, code, error = done.get(timeout=max(0.0, min(
                        deadline, next_progress, now + liveness.interval_s) - now))
                except queue.Empty:
                    if time.monotonic() >= next_progress:
                        _progress(hosts, case, rnd, states, liveness, suite)
                        next_progress = time.monotonic() + PROGRESS_EVERY_S
                    continue
                if st.status != "running":    # already ended as its host's silence
                    continue
            pending -= 1
            if _record_exit(st, code, error):
                continue
            for other in states:
                other.finish("canceled", f"stopped because node {st.node.node_rank} "
                                         f"({st.node.host}) failed")
            return


def _silent_nodes(hosts: HostGroup, liveness: Liveness, states: list[NodeState]
                  ) -> list[tuple[NodeState, None, BaseException]]:
    """The running nodes of hosts that stopped answering, each with the error that ends it;
    those hosts join ``hosts.silent`` (nothing more is asked of them in this run)."""
    found: list[tuple[NodeState, None, BaseException]] = []
    for name in liveness.silent():
        if name not in hosts.silent:
            hosts.silent.add(name)
            log.error("[%s] no answer over SSH for %.0f s: the host is lost to this run",
                      name, liveness.silent_for(name))
        error = silence_error(name, liveness.silent_for(name), liveness.interval_s)
        found += [(st, None, error) for st in states
                  if st.node.host == name and st.status == "running"]
    return found


def _waiter(st: NodeState, deadline: float, done: "queue.Queue") -> None:
    try:
        code = runtime.exit_code(st.container, timeout=max(1.0, deadline - time.monotonic() + 5))
        done.put((st, code, None))
    except Exception as exc:  # kept whole: its kind decides the message, --debug its traceback
        done.put((st, None, exc))


def _record_exit(st: NodeState, code: int | None, error: BaseException | None) -> bool:
    """True when the node finished well."""
    node = st.node
    if code == 0:
        st.finish("succeeded")
        log.info("[%s] node %d: finished", node.host, node.node_rank)
        return True
    if error is not None:
        kind, reason = failure(error, f"waiting for {node.container}")
        st.error = error
    else:
        kind, reason = "exited", (f"launcher exited with status {code}; see "
                                  f"{node.result_rel}/launcher.log and rank*.out.log")
    st.finish("timeout" if kind == "timeout" else "failed", reason, kind)
    log_failure(f"[{node.host}] node {node.node_rank}", kind, reason, error)
    return False


def _progress(hosts: HostGroup, case: CasePlan, rnd: RoundPlan, states: list[NodeState],
              liveness: Liveness, suite: str) -> None:
    node = rnd.nodes[0]
    tail = ""
    # Not from a host that has gone quiet, and never for long: the round loop waits on this
    # read, and a host losing its packets may answer one probe and then hang this read
    # (seen: 100 s, so its loss was noticed after 123 s instead of HOST_LOST_AFTER's 20 s).
    if liveness.silent_for(node.host) < 2 * liveness.interval_s + 5:
        try:
            tail = hosts[node.host].read_tail(f"{node.output_dir}/rank0.out.log", 20000,
                                              timeout=liveness.interval_s).decode(errors="replace")
        except HostError:
            pass
    events, _ = parse_lines(tail.splitlines())
    last = events[-1] if events else None
    running = sum(st.status == "running" for st in states)
    log.info("case %s round %d: %d/%d node(s) running; %s", case.key, rnd.number, running,
             len(states), _event_text(last, suite))


# Shown first in a progress line, when the event has them (a STEP_END: step, loss, pace).
PROGRESS_KEYS = ("step", "epoch", "loss", "throughput_so_far")


# What a progress line calls the timed window's events outside training (they are the
# PerfLog protocol's TRAIN_START / TRAIN_END in every suite; the reader is not training).
WINDOW_EVENTS = {"TRAIN_START": "timed window started", "TRAIN_END": "timed window ended"}
WINDOW_KEYS = {"time_s": "window_s"}


def _event_text(event: Any, suite: str = "training") -> str:
    if event is None:
        return "no PerfLog event yet"
    if not get_suite(suite).trains and event.name in WINDOW_EVENTS:
        numbers = {WINDOW_KEYS.get(k, k): v for k, v in event.value.items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)}
        shown = " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                         for k, v in list(numbers.items())[:6])
        return f"{WINDOW_EVENTS[event.name]} {shown}".rstrip()
    numbers = {k: v for k, v in event.value.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)}
    keys = [k for k in PROGRESS_KEYS if k in numbers]
    keys += [k for k in numbers if k not in keys]
    shown = " ".join(f"{k}={numbers[k]:.4g}" if isinstance(numbers[k], float)
                     else f"{k}={numbers[k]}" for k in keys[:6])
    return f"last event {event.name} {shown}".rstrip()


def _teardown(hosts: HostGroup, states: list[NodeState], s: RoundSettings) -> None:
    each(states, lambda st: _teardown_node(hosts, st, s), "teardown",
         key=lambda st: st.node.host, raise_errors=False)


def _teardown_node(hosts: HostGroup, st: NodeState, s: RoundSettings) -> None:
    node, local = st.node, _local(s, st)
    if node.host in hosts.silent:   # every call would hang: the files stay there
        _keep_on_silent_host(st, s)
        name_case_error(st, local)
        write_status(local, st.status, st.reason)
        return
    stopped = True
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            monitor = pool.submit(_stop_monitor, st.monitor)
            if st.container is not None:
                _stop_case_container(st, local)
            monitor.result()
    except Exception as exc:  # the engine is away: the node's files are still collected
        stopped = False
        log.error("[%s] node %d: stopping its containers failed: %s", node.host, node.node_rank, exc)
    if not stopped or st.status not in ("succeeded", "running"):
        name_engine_loss(hosts, st)   # an engine stopped normally ends its containers: exit 1
    st.finish("canceled", "stopped during teardown")
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
    check_finished(st, local)
    _name_full_disk(hosts, st)
    name_port_clash(hosts, st, local)
    name_case_error(st, local)
    write_status(local, st.status, st.reason)


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
        runtime.stop(st.container)
    else:
        runtime.remove(st.container)


def _stop_monitor(monitor: Any) -> None:
    if monitor is not None:
        runtime.stop(monitor, grace_s=15)


def check_finished(st: Judged, local: Path) -> None:
    """A node that ended well fails when it is global rank 0's and its log in ``local`` has
    no FINISHED event."""
    if st.status != "succeeded" or st.node.node_rank != 0:
        return
    log_file = local / "rank0.out.log"
    text = log_file.read_text(errors="replace") if log_file.exists() else ""
    events, _ = parse_lines(text.splitlines())
    if not any(e.name == "FINISHED" for e in events):
        st.status, st.reason = "failed", "exited 0 but rank 0 printed no FINISHED PerfLog event"


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
