"""Slurm's command lines and answers, as pure functions (no process is started here)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Optional

from chipperf.config.model import ClusterConfig, SlurmConfig, TestConfig
from chipperf.plan.sweep import round_points

HOLD_COMMAND = "sleep infinity"     # the batch step: the allocation is what the run needs
TIME_MARGIN_S = 600.0               # preflight, image builds and teardown on top of the rounds
UNLIMITED = "UNLIMITED"
JOB_NAME = "chipperf"


@dataclass(frozen=True)
class Request:
    """What the run asks Slurm for."""

    job_name: str
    nodes: int
    time_limit_min: int
    gpus_per_node: Optional[int]
    slurm: SlurmConfig


def request(cluster: ClusterConfig, test: TestConfig, gpus: bool) -> Request:
    """The allocation for a whole run: SLURM_NODES nodes, exclusively, for every round's
    deadline plus TIME_MARGIN_S; ``gpus``: the vendor's chips are GPUs (--gpus-per-node
    = the largest nproc)."""
    assert cluster.slurm is not None
    rounds_s = sum(len(round_points(entry, test)) * test.round_timeout_s   # a sweep: its grid
                   for entry in test.cases)
    per_node = max((entry.key.nproc for entry in test.cases), default=1)
    return Request(JOB_NAME, cluster.slurm.nodes,
                   math.ceil((rounds_s + TIME_MARGIN_S) / 60), per_node if gpus else None,
                   cluster.slurm)


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


def minutes(slurm_time: str) -> Optional[float]:
    """Slurm's time format (``UNLIMITED``, ``M``, ``M:S``, ``H:M:S``, ``D-H``, ``D-H:M``,
    ``D-H:M:S``) in minutes; None: no limit."""
    text = slurm_time.strip()
    if text.upper() in (UNLIMITED, "INFINITE", "NONE", ""):
        return None
    days, _, clock = text.rpartition("-")
    parts = [float(p) for p in clock.split(":")]
    if days:            # D-H, D-H:M, D-H:M:S
        h, m, s = (parts + [0.0, 0.0])[:3]
    elif len(parts) == 3:   # H:M:S
        h, m, s = parts
    else:               # M, M:S
        h, m, s = 0.0, parts[0], (parts + [0.0])[1]
    return float(days or 0) * 1440 + h * 60 + m + s / 60


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
