"""The wait of a round: every node's case container until it exits, the round's deadline,
the round's hosts watched over SSH (chipperf.remote.liveness), a progress line now and then.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any

from chipperf.containers import runtime
from chipperf.errors import HostError, failure, log_failure
from chipperf.plan import CasePlan, RoundPlan
from chipperf.remote import HostGroup
from chipperf.remote.liveness import Liveness, silence_error
from chipperf.run.holdwatch import HoldWatch
from chipperf.run.node import NodeState
from chipperf.suites import get_suite
from chipperf_runtime.perflog import parse_lines

log = logging.getLogger("chipperf")


PROGRESS_EVERY_S = 20.0
HOLD_LOST_GRACE_S = 1.0   # SIGTERM -> SIGKILL for containers on hosts the run no longer holds


def wait_round(hosts: HostGroup, case: CasePlan, rnd: RoundPlan, states: list[NodeState],
               lost_after_s: float, suite: str = "training", hold: HoldWatch | None = None) -> None:
    """Until every node's case container exited, one failed (the others are canceled), the
    round's deadline passed, a host stopped answering or the run's hold on its hosts ended
    (``hold``: a Slurm job ended under the run)."""
    hold = hold or HoldWatch()
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
                _time_out(case, rnd, states)
                return
            if hold.check():
                _hold_ended(case, rnd, states, hold.reason)
                return
            lost = _silent_nodes(hosts, liveness, states)
            error: BaseException | None
            if lost:
                st, code, error = lost[0]
            else:
                try:
                    st, code, error = done.get(timeout=max(0.0, min(
                        deadline, next_progress, now + liveness.interval_s,
                        now + hold.due_in()) - now))
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


def _time_out(case: CasePlan, rnd: RoundPlan, states: list[NodeState]) -> None:
    for st in states:
        st.finish("timeout", f"still running after the round deadline of "
                             f"{rnd.timeout_s:.0f} s", "timeout")
    log.error("case %s round %d: timed out after %.0f s", case.key, rnd.number, rnd.timeout_s)


def _hold_ended(case: CasePlan, rnd: RoundPlan, states: list[NodeState], why: str) -> None:
    """Stopped at once: the hosts may already run another job."""
    for st in states:
        st.finish("canceled", f"stopped at once: {why}")
        st.stop_grace_s = HOLD_LOST_GRACE_S
    log.error("case %s round %d: stopped at once: %s", case.key, rnd.number, why)


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
        kind, reason = "exited", _exit_reason(st, code)
    st.finish("timeout" if kind == "timeout" else "failed", reason, kind)
    log_failure(f"[{node.host}] node {node.node_rank}", kind, reason, error)
    return False


def _exit_reason(st: NodeState, code: int | None) -> str:
    """Why the node's launcher ended badly: its status, and first the kernel's OOM kill when
    the container's memory limit (docker --memory) had it kill a process in the container."""
    see = f"see {st.node.result_rel}/launcher.log and rank*.out.log"
    if runtime.lifetime(st.container).get("oom_killed"):
        return ("out of memory: the container's memory limit was reached and the kernel killed "
                f"a process in it (OOMKilled); launcher exited with status {code}; {see}")
    return f"launcher exited with status {code}; {see}"


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
