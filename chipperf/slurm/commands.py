"""Slurm's command lines and answers, as pure functions (no process is started here)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Optional

from chipperf.config.fields import slurm_minutes
from chipperf.config.model import ClusterConfig, SlurmConfig, TestConfig
from chipperf.plan.sweep import round_points
from chipperf.remote.interface import CommandResult

HOLD_COMMAND = "sleep infinity"     # the batch step: the allocation is what the run needs
TIME_MARGIN_S = 600.0               # preflight, image builds and teardown on top of the rounds
UNLIMITED = "UNLIMITED"
JOB_NAME = "chipperf"
minutes = slurm_minutes             # Slurm's time format -> minutes (None: no limit)
GONE = "GONE"                       # Slurm no longer knows the job (ended and purged)
ENDED_ANSWERS = ("invalid job id", "already completing", "already completed")


@dataclass(frozen=True)
class Request:
    """What the run asks Slurm for."""

    job_name: str
    nodes: int
    time_limit_min: int
    gpus_per_node: Optional[int]
    slurm: SlurmConfig
    needed_min: int = 0             # every round's deadline + TIME_MARGIN_S: the run's longest length
    first_round_min: int = 0        # TIME_MARGIN_S + the first round's deadline: the least that runs a round


def request(cluster: ClusterConfig, test: TestConfig, gpus: bool) -> Request:
    """The allocation for a whole run: SLURM_NODES nodes, exclusively, for every round's
    deadline plus TIME_MARGIN_S; ``gpus``: the vendor's chips are GPUs (--gpus-per-node
    = the largest nproc)."""
    assert cluster.slurm is not None
    rounds_s = sum(len(round_points(entry, test)) * test.round_timeout_s   # a sweep: its grid
                   for entry in test.cases)
    per_node = max((entry.key.nproc for entry in test.cases), default=1)
    needed = math.ceil((rounds_s + TIME_MARGIN_S) / 60)
    first = math.ceil((TIME_MARGIN_S + (test.round_timeout_s if test.cases else 0.0)) / 60)
    given = cluster.slurm.time_limit_min
    return Request(JOB_NAME, cluster.slurm.nodes, needed if given is None else given,
                   per_node if gpus else None, cluster.slurm, needed, first)


def sbatch_argv(req: Request) -> list[str]:
    """A holding job: --exclusive nodes that run nothing but ``sleep`` until scancel."""
    argv = ["sbatch", "--parsable", f"--job-name={req.job_name}", f"--nodes={req.nodes}",
            "--exclusive", f"--time={req.time_limit_min}", "--output=/dev/null", "--chdir=/tmp"]
    if req.slurm.partition:
        argv.append(f"--partition={req.slurm.partition}")
    if req.slurm.account:
        argv.append(f"--account={req.slurm.account}")
    if req.gpus_per_node:
        argv.append(f"--gpus-per-node={req.gpus_per_node}")
    return [*argv, *req.slurm.extra_args, f"--wrap={HOLD_COMMAND}"]


def squeue_argv(job_id: str) -> list[str]:
    return ["squeue", "--noheader", f"--jobs={job_id}", "--format=%T|%r|%N"]


def scontrol_job_argv(job_id: str) -> list[str]:
    return ["scontrol", "--oneliner", "show", "job", job_id]


def scancel_argv(job_id: str) -> list[str]:
    return ["scancel", job_id]


def job_state(result: CommandResult) -> str:
    """The state ``scontrol show job`` answered: the JobState, GONE when Slurm no longer
    knows the job, '' when Slurm did not answer (slurmctld down or unreachable: unknown)."""
    if result.ok:
        return fields(result.stdout).get("JobState", "")
    return GONE if slurm_said_ended(result) else ""


def slurm_said_ended(result: CommandResult) -> bool:
    """Slurm answered that the job has ended or is no longer known (not: no answer)."""
    said = f"{result.stderr}\n{result.stdout}".lower()
    return any(answer in said for answer in ENDED_ANSWERS)


def job_id_of(sbatch_stdout: str) -> str:
    """``--parsable`` prints ``JOBID`` or ``JOBID;CLUSTER``."""
    text = sbatch_stdout.strip().split(";")[0]
    if not text.isdigit():
        raise ValueError(f"sbatch printed {sbatch_stdout.strip()!r}, not a job id")
    return text


@dataclass(frozen=True)
class QueueState:
    state: str         # PENDING, RUNNING, ... ("" when squeue no longer lists the job)
    reason: str        # why it pends (Resources, Priority, PartitionDown, ...)
    nodelist: str      # h[7-8] once it runs


def queue_state(squeue_stdout: str) -> QueueState:
    line = next((x for x in squeue_stdout.splitlines() if x.strip()), "")
    parts = (line.split("|") + ["", "", ""])[:3]
    return QueueState(*(p.strip() for p in parts))


def fields(oneliner: str) -> dict[str, str]:
    """``scontrol --oneliner show ...``: KEY=VALUE words (values without spaces) -> dict."""
    return {m.group(1): m.group(2) for m in re.finditer(r"(\w+)=(\S*)", oneliner)}


def gpus_in_gres(gres: str) -> int:
    """GPUs per node in sinfo's %G (``gpu:8``, ``gpu:a100:4(S:0-1)``, ``(null)``)."""
    total = 0
    for item in gres.split(","):
        parts = item.split("(")[0].split(":")
        if parts[0] == "gpu" and parts[-1].isdigit():
            total += int(parts[-1])
    return total


def on_nodes(cluster: ClusterConfig, test: TestConfig, addresses: tuple[str, ...]
             ) -> tuple[ClusterConfig, TestConfig]:
    """The configs with the allocation's node addresses where the plan had placeholders
    (node rank = the allocation's order)."""
    assert cluster.slurm is not None
    real = dict(zip(cluster.slurm.placeholders, addresses))
    cases = tuple(replace(e, hosts=tuple(real[h] for h in e.hosts)) for e in test.cases)
    return replace(cluster, hosts=addresses), replace(test, cases=cases)
