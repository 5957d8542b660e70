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
from pathlib import Path
from typing import Any, Mapping

from chipperf.containers import runtime
from chipperf.containers.runtime import ContainerSpec
from chipperf.errors import HostError, interruption
from chipperf.perflog import case_error, parse_lines
from chipperf.plan import CasePlan, NodePlan, RoundPlan
from chipperf.remote import HostGroup, each
from chipperf.results.layout import write_status

log = logging.getLogger("chipperf")
PROGRESS_EVERY_S = 20.0


@dataclass(frozen=True)
class RoundSettings:
    run_id: str
    run_dir: Path
    image: str
    vendor: str
    shm_size: str
    monitor_interval_s: float
    options: Mapping[str, Any]
    sensors: Mapping[str, Mapping[str, Any]]   # host -> monitor-only docker options


@dataclass
class NodeState:
    node: NodePlan
    status: str = "starting"
    reason: str = ""
    container: Any = None
    monitor: Any = None
    lifetime: dict[str, Any] = field(default_factory=dict)

    def finish(self, status: str, reason: str = "") -> None:
        if self.status in ("starting", "running"):
            self.status, self.reason = status, reason


@dataclass
class RoundOutcome:
    number: int
    status: str
    reason: str
    started_ms: int
    finished_ms: int
    nodes: dict[str, str] = field(default_factory=dict)
    containers: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "status": self.status, "reason": self.reason,
                "started_ms": self.started_ms, "finished_ms": self.finished_ms, "nodes": self.nodes,
                "containers": self.containers}


def run_round(hosts: HostGroup, case: CasePlan, rnd: RoundPlan, s: RoundSettings) -> RoundOutcome:
    states = [NodeState(n) for n in rnd.nodes]
    started = int(time.time() * 1000)
    for st in states:
        write_status(_local(s, st), "starting")
    canceled = False
    interrupted: BaseException | None = None
    try:
        each(states, lambda st: _start_node(hosts, case, st, s), "start containers",
             key=lambda st: st.node.host, raise_errors=False)
        failed = [st for st in states if st.status == "failed"]
        if not failed:
            for st in states:
                write_status(_local(s, st), "running")
            _wait(hosts, case, rnd, states)
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


def _local(s: RoundSettings, st: NodeState) -> Path:
    return s.run_dir / st.node.result_rel


def _start_node(hosts: HostGroup, case: CasePlan, st: NodeState, s: RoundSettings) -> None:
    """Make the node dir, then start the monitor sidecar and the case container side by side."""
    node, host = st.node, hosts[st.node.host]
    try:
        client = host.docker()
        host.makedirs(node.output_dir)
        with ThreadPoolExecutor(max_workers=1) as pool:
            monitor = pool.submit(_start_monitor, client, case, st, s)
            try:
                st.container = runtime.start(client, _case_spec(case, node, s), node.host)
            finally:
                st.monitor = monitor.result()
        st.status = "running"
        log.info("[%s] node %d: started %s", node.host, node.node_rank, node.container)
    except Exception as exc:
        st.status, st.reason = "failed", str(exc)
        log.error("[%s] node %d: %s", node.host, node.node_rank, exc)


def _case_spec(case: CasePlan, node: NodePlan, s: RoundSettings) -> ContainerSpec:
    command = ("python3", "-m", "chipperf.launchers.rankexec", f"{node.output_dir}/launcher.log",
               *node.command)
    return ContainerSpec(node.container, s.image, command, node.env,
                         {node.work_dir: "rw", case.data_dir: "ro"}, s.run_id, s.shm_size,
                         s.options)


def _start_monitor(client: Any, case: CasePlan, st: NodeState, s: RoundSettings) -> Any:
    node = st.node
    command = ("python3", "-m", "chipperf.monitors", "--out", node.output_dir,
               "--interval", str(s.monitor_interval_s), "--vendor", s.vendor)
    sensors = dict(s.sensors.get(node.host, {}))
    env = {"PYTHONPATH": node.env["PYTHONPATH"], "PYTHONUNBUFFERED": "1",
           **sensors.pop("environment", {})}
    options = {**s.options, **sensors,
               "devices": [*s.options.get("devices", []), *sensors.get("devices", [])],
               "volumes_extra": {**s.options.get("volumes_extra", {}),
                                 **sensors.get("volumes_extra", {})}}
    spec = ContainerSpec(node.monitor, s.image, command, env, {node.work_dir: "rw"}, s.run_id,
                         "64m", options, pid_host=True)
    try:
        return runtime.start(client, spec, node.host)
    except HostError as exc:  # the round goes on without telemetry; the gap is recorded
        log.warning("[%s] node %d: monitor sidecar did not start: %s", node.host, node.node_rank, exc)
        return None


def _wait(hosts: HostGroup, case: CasePlan, rnd: RoundPlan, states: list[NodeState]) -> None:
    deadline = time.monotonic() + rnd.timeout_s
    done: "queue.Queue[tuple[NodeState, int | None, str]]" = queue.Queue()
    for st in states:
        threading.Thread(target=_waiter, args=(st, deadline, done), daemon=True).start()
    pending = len(states)
    next_progress = time.monotonic() + PROGRESS_EVERY_S
    while pending:
        now = time.monotonic()
        if now >= deadline:
            for st in states:
                st.finish("timeout", f"still running after the round deadline of {rnd.timeout_s:.0f} s")
            log.error("case %s round %d: timed out after %.0f s", case.key, rnd.number, rnd.timeout_s)
            return
        try:
            st, code, error = done.get(timeout=min(deadline, next_progress) - now)
        except queue.Empty:
            _progress(hosts, case, rnd, states)
            next_progress = time.monotonic() + PROGRESS_EVERY_S
            continue
        pending -= 1
        if _record_exit(st, code, error):
            continue
        for other in states:
            other.finish("canceled", f"stopped because node {st.node.node_rank} "
                                     f"({st.node.host}) failed")
        return


def _waiter(st: NodeState, deadline: float, done: "queue.Queue") -> None:
    try:
        code = runtime.exit_code(st.container, timeout=max(1.0, deadline - time.monotonic() + 5))
        done.put((st, code, ""))
    except Exception as exc:
        done.put((st, None, f"lost contact with the host's Docker engine ({type(exc).__name__}: "
                            f"{exc}); the host may have gone down"))


def _record_exit(st: NodeState, code: int | None, error: str) -> bool:
    """True when the node finished well."""
    node = st.node
    if code == 0:
        st.finish("succeeded")
        log.info("[%s] node %d: finished", node.host, node.node_rank)
        return True
    reason = error or f"launcher exited with status {code}; see {node.result_rel}/launcher.log " \
                      "and rank*.out.log"
    st.finish("failed", reason)
    log.error("[%s] node %d: %s", node.host, node.node_rank, reason)
    return False


def _progress(hosts: HostGroup, case: CasePlan, rnd: RoundPlan, states: list[NodeState]) -> None:
    node = rnd.nodes[0]
    try:
        tail = hosts[node.host].read_tail(f"{node.output_dir}/rank0.out.log", 20000).decode(
            errors="replace")
    except HostError:
        tail = ""
    events, _ = parse_lines(tail.splitlines())
    last = events[-1] if events else None
    running = sum(st.status == "running" for st in states)
    log.info("case %s round %d: %d/%d node(s) running; %s", case.key, rnd.number, running,
             len(states), _event_text(last))


# Shown first in a progress line, when the event has them (a STEP_END: step, loss, pace).
PROGRESS_KEYS = ("step", "epoch", "loss", "throughput_so_far")


def _event_text(event: Any) -> str:
    if event is None:
        return "no PerfLog event yet"
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
    with ThreadPoolExecutor(max_workers=1) as pool:
        monitor = pool.submit(_stop_monitor, st.monitor)
        if st.container is not None:
            _stop_case_container(st, local)
        monitor.result()
    st.finish("canceled", "stopped during teardown")
    try:
        skipped = hosts[node.host].get_dir(node.output_dir, local)
        if skipped:
            log.warning("[%s] node %d: not copied back (not a regular file or directory): %s",
                        node.host, node.node_rank, ", ".join(skipped[:10]))
    except HostError as exc:
        log.error("[%s] node %d: could not collect %s: %s", node.host, node.node_rank,
                  node.output_dir, exc)
        if st.status == "succeeded":
            st.status, st.reason = "failed", f"results could not be collected: {exc}"
    else:  # collected: the host's copy goes (the run's teardown retries what is left)
        try:
            hosts[node.host].remove_tree(node.output_dir)
        except HostError as exc:
            log.warning("[%s] node %d: %s", node.host, node.node_rank, exc)
    _check_finished(st, local)
    _name_case_error(st, local)
    write_status(local, st.status, st.reason)


def _stop_case_container(st: NodeState, local: Path) -> None:
    if st.status in ("failed", "timeout", "running"):
        local.mkdir(parents=True, exist_ok=True)
        (local / "container.log").write_text(runtime.logs_tail(st.container, 200))
    st.lifetime = runtime.lifetime(st.container)
    if st.lifetime.get("running", True):
        runtime.stop(st.container)
    else:
        runtime.remove(st.container)


def _stop_monitor(monitor: Any) -> None:
    if monitor is not None:
        runtime.stop(monitor, grace_s=15)


def _check_finished(st: NodeState, local: Path) -> None:
    if st.status != "succeeded" or st.node.node_rank != 0:
        return
    log_file = local / "rank0.out.log"
    text = log_file.read_text(errors="replace") if log_file.exists() else ""
    events, _ = parse_lines(text.splitlines())
    if not any(e.name == "FINISHED" for e in events):
        st.status, st.reason = "failed", "exited 0 but rank 0 printed no FINISHED PerfLog event"


def _name_case_error(st: NodeState, local: Path) -> None:
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
    if all(st.status == "succeeded" for st in states):
        status, reason = "succeeded", ""
    else:
        bad = [st for st in states if st.status not in ("succeeded", "canceled")]
        first = bad[0] if bad else states[0]
        status = "canceled" if canceled else first.status
        reason = f"node {first.node.node_rank} ({first.node.host}): {first.reason}"
    return RoundOutcome(rnd.number, status, reason, started, int(time.time() * 1000), nodes,
                        containers)
