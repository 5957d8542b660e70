"""The run's Slurm allocation: submitted, waited for, read, and released on every way out.

chipperf submits a holding job (``sbatch --exclusive --wrap 'sleep infinity'``) for the
nodes, waits until it runs (QUEUE_TIMEOUT: scancel, fail), reads the nodes in Slurm's order
(node rank = position) and their addresses (NodeAddr), and then runs the usual SSH + Docker
path on exactly those nodes: the allocation is what keeps other jobs off them. ``release``
(scancel) runs after the run's teardown, whatever ended the run.
"""

from __future__ import annotations

import logging
import shlex
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from chipperf.errors import ChipperfError, HostError
from chipperf.remote import LocalHost
from chipperf.remote.host import CommandResult
from chipperf.slurm import commands
from chipperf.slurm.commands import Request

log = logging.getLogger("chipperf")
POLL_S = 1.0                # squeue at most this often; sooner at first (a free node starts at once)
RELEASE_WAIT_S = 15.0       # a released job Slurm has not said ended within this: unconfirmed,
# unless Slurm says it is ending it (COMPLETING): a job whose node stopped answering ends when
# slurmctld marks that node down (SlurmdTimeout: 300 s by default, the simulated cluster's 20 s;
# a loaded controller took longer than 15 s in CI), so a COMPLETING job is waited for this long
COMPLETING_WAIT_S = 120.0
Runner = Callable[[Sequence[str]], CommandResult]


class SlurmError(ChipperfError):
    """Slurm could not give the run its nodes (or answer at all)."""


def slurm(argv: Sequence[str], timeout: float = 60) -> CommandResult:
    """One Slurm command on the master; a missing command or no answer is a SlurmError."""
    try:
        return LocalHost().run(list(argv), timeout=timeout, check=False)
    except HostError as exc:
        raise SlurmError(f"Slurm is not reachable from this master: `{shlex.join(argv)}`: {exc}: "
                         "install Slurm's client commands and the site's slurm.conf here") from exc


def checked(result: CommandResult, doing: str) -> str:
    if not result.ok:
        said = (result.stderr or result.stdout).strip()[-500:] or f"exit {result.exit_code}"
        raise SlurmError(f"{doing}: `{shlex.join(result.argv)}` failed: {said}")
    return result.stdout


@dataclass
class Allocation:
    request: Request
    sbatch: list[str]
    job_id: str
    nodes: tuple[str, ...] = ()          # Slurm node names, node rank = index
    addresses: tuple[str, ...] = ()      # their NodeAddr: what SSH reaches
    queued_s: Optional[float] = None     # submitted -> RUNNING
    allocate_s: Optional[float] = None   # sbatch -> nodes read: what Slurm adds before the run
    release_s: Optional[float] = None    # scancel -> the job's end state read
    states: list[str] = field(default_factory=list)   # as chipperf saw them, in order
    released: bool = False               # release() ran
    confirmed: bool = False              # ... and Slurm said the job ended
    unanswered: bool = False             # the last look at the job got no answer from Slurm

    def facts(self) -> dict[str, Any]:
        """What run.json records under "executor"."""
        return {"kind": "slurm", "job_id": self.job_id, "sbatch": shlex.join(self.sbatch),
                "nodes": list(self.nodes), "addresses": list(self.addresses),
                "queued_s": self.queued_s, "allocate_s": self.allocate_s,
                "release_s": self.release_s, "states": list(self.states),
                "release": ("confirmed" if self.confirmed else "unconfirmed") if self.released else None,
                "final_state": self.states[-1] if self.confirmed and self.states else None}

    def lost(self, run: Runner = slurm) -> str:
        """Why the nodes are no longer held ('' while the job runs, or while Slurm does not
        answer: slurmctld away gives no node to another job): Slurm ended the job (NODE_FAIL,
        TIMEOUT, PREEMPTED, someone's scancel) and may give the nodes to other jobs."""
        asked = run(commands.squeue_argv(self.job_id))
        if not asked.ok and not commands.slurm_said_ended(asked):
            if not self.unanswered:     # said once, not at every look while slurmctld is away
                log.warning("slurm job %s: Slurm did not answer `%s` (%s): the job is taken to "
                            "run on (no controller gives its nodes to another job meanwhile)",
                            self.job_id, shlex.join(asked.argv), _said(asked))
            self.unanswered = True
            return ""
        self.unanswered = False
        state = commands.queue_state(asked.stdout).state if asked.ok else commands.GONE
        if state == "RUNNING":
            return ""
        if state == "COMPLETING" and self.states[-1:] != ["COMPLETING"]:
            self._note(state)    # said at once: the nodes go to other jobs within seconds
            return (f"slurm job {self.job_id} is COMPLETING (Slurm is ending it): its nodes "
                    f"({', '.join(self.nodes)}) are no longer held for this run")
        if state in ("", "COMPLETING"):    # ended, or asked again: its end state (CANCELLED, ...)
            state = _ended_state(self.job_id, run) or state or commands.GONE
        self._note(state)
        return (f"slurm job {self.job_id} is {self.states[-1]}: its "
                f"nodes ({', '.join(self.nodes)}) are no longer held for this run")

    def release(self, run: Runner = slurm) -> None:
        """scancel (once), then the job's state as Slurm ends it (CANCELLED, NODE_FAIL, ...);
        a release Slurm did not confirm (slurmctld gone) is recorded as unconfirmed."""
        if self.released:
            return
        self.released = True
        started = time.monotonic()
        try:
            cancel = run(commands.scancel_argv(self.job_id))
            state = _ended_state(self.job_id, run)
        except SlurmError as exc:
            self._unconfirmed(str(exc))
            return
        if not state or (not cancel.ok and not commands.slurm_said_ended(cancel)):
            self._unconfirmed(f"`{shlex.join(cancel.argv)}` said: {_said(cancel)}")
            return
        self._note(state)
        self.release_s = round(time.monotonic() - started, 3)
        self.confirmed = True
        log.info("slurm job %s released (%s)", self.job_id, self.states[-1])

    def _unconfirmed(self, why: str) -> None:
        log.error("slurm job %s: its release is unconfirmed (Slurm did not answer: %s): it may "
                  "still hold its nodes; once slurmctld answers, `scancel %s` releases them",
                  self.job_id, why, self.job_id)

    def _note(self, state: str) -> None:
        if state and (not self.states or self.states[-1] != state):
            self.states.append(state)


def allocate(req: Request, run: Runner = slurm, clock: Callable[[], float] = time.monotonic,
             sleep: Callable[[float], None] = time.sleep) -> Allocation:
    """Submit, wait until it runs, read its nodes; on any failure (Ctrl-C included) the job
    is cancelled before the exception goes on."""
    argv = commands.sbatch_argv(req)
    started = time.monotonic()
    job_id = commands.job_id_of(checked(run(argv), "submitting the run's Slurm job"))
    alloc = Allocation(req, argv, job_id)
    log.info("slurm job %s submitted: %s", job_id, shlex.join(argv))
    try:
        _wait_running(alloc, run, clock, sleep)
        _read_nodes(alloc, run)
    except BaseException:
        alloc.release(run)
        raise
    alloc.allocate_s = round(time.monotonic() - started, 3)
    log.info("slurm job %s runs on %s (%s) after %.1f s in the queue", job_id,
             ", ".join(alloc.nodes), ", ".join(alloc.addresses), alloc.queued_s or 0.0)
    return alloc


def _wait_running(alloc: Allocation, run: Runner, clock: Callable[[], float],
                  sleep: Callable[[float], None]) -> None:
    started = clock()
    limit = alloc.request.slurm.queue_timeout_s
    polls = 0
    while True:
        state = commands.queue_state(checked(run(commands.squeue_argv(alloc.job_id)),
                                             f"asking Slurm about job {alloc.job_id}"))
        alloc._note(state.state or _ended_state(alloc.job_id, run))
        if state.state == "RUNNING":
            alloc.queued_s = round(clock() - started, 3)
            return
        if state.state not in ("PENDING", "CONFIGURING"):
            raise SlurmError(f"slurm job {alloc.job_id} ended before it ran "
                             f"({alloc.states[-1] if alloc.states else 'gone'}): see "
                             f"`scontrol show job {alloc.job_id}`")
        if clock() - started > limit:
            raise SlurmError(f"slurm job {alloc.job_id} still {state.state} after QUEUE_TIMEOUT = "
                             f"{limit:g} s (reason: {state.reason or 'none given'}): cancelled; "
                             "free nodes in the partition, or raise QUEUE_TIMEOUT")
        sleep(min(POLL_S, 0.1 * 2 ** polls))
        polls += 1


def _read_nodes(alloc: Allocation, run: Runner) -> None:
    job = commands.fields(checked(run(commands.scontrol_job_argv(alloc.job_id)), "reading the job"))
    nodelist = job.get("NodeList", "")
    names = tuple(checked(run(["scontrol", "show", "hostnames", nodelist]),
                          "expanding the node list").split())
    if len(names) < alloc.request.nodes:
        raise SlurmError(f"slurm job {alloc.job_id} got {len(names)} node(s) ({nodelist}), fewer "
                         f"than the {alloc.request.nodes} asked for: cancelled")
    addr = _node_addresses(nodelist, run)
    alloc.nodes, alloc.addresses = names, tuple(addr.get(n, n) for n in names)


def _node_addresses(nodelist: str, run: Runner) -> dict[str, str]:
    out = checked(run(["scontrol", "--oneliner", "show", "node", nodelist]), "reading the nodes")
    nodes = (commands.fields(line) for line in out.splitlines() if line.strip())
    return {n["NodeName"]: n.get("NodeAddr") or n["NodeName"] for n in nodes if "NodeName" in n}


def _ended_state(job_id: str, run: Runner) -> str:
    """The job's state once it leaves RUNNING/COMPLETING (GONE: Slurm no longer knows it);
    '' when Slurm does not answer or the job has not ended within RELEASE_WAIT_S
    (COMPLETING_WAIT_S while Slurm says it is COMPLETING)."""
    started = time.monotonic()
    while True:
        state = commands.job_state(run(commands.scontrol_job_argv(job_id)))
        if state not in ("RUNNING", "COMPLETING", "CONFIGURING", ""):
            return state
        wait = COMPLETING_WAIT_S if state == "COMPLETING" else RELEASE_WAIT_S
        if time.monotonic() - started >= wait:
            return ""
        time.sleep(0.2)


def _said(result: CommandResult) -> str:
    return (result.stderr or result.stdout).strip()[-300:] or f"exit {result.exit_code}"
