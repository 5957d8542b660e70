"""Before anything is queued: can Slurm give this request? One problem per thing that is
wrong (partition, nodes, time limit, GPUs), or one saying Slurm does not answer."""

from __future__ import annotations

from typing import Optional

from chipperf.slurm import commands
from chipperf.slurm.allocation import Runner, SlurmError, slurm
from chipperf.slurm.commands import Request


def problems(req: Request, run: Runner = slurm) -> list[str]:
    where = "cluster config: EXECUTOR = 'slurm'"
    try:
        part = _partition(req.slurm.partition, run)
    except SlurmError as exc:
        return [f"{where}: {exc}"]
    if isinstance(part, str):
        return [f"{where}: {part}"]
    name = part["PartitionName"]
    found = []
    total = int(part.get("TotalNodes", "0") or 0)
    if req.nodes > total:
        found.append(f"SLURM_NODES = {req.nodes} but partition {name} has {total} node(s): "
                     f"ask for at most {total}, or use another SLURM_PARTITION")
    most = commands.minutes(part.get("MaxTime", commands.UNLIMITED))
    if most is not None and req.time_limit_min > most:
        found.append(f"the run needs a time limit of {req.time_limit_min} min (every round's "
                     f"deadline + {commands.TIME_MARGIN_S / 60:.0f} min) but partition {name} "
                     f"allows {part['MaxTime']}: lower ROUND_TIMEOUT or repeat, or use another partition")
    if req.gpus_per_node:
        gpus = _gpus_per_node(name, run)
        if req.gpus_per_node > gpus:
            found.append(f"the cases need {req.gpus_per_node} GPU(s) per node (nproc) but the nodes "
                         f"of partition {name} have {gpus} (sinfo %G): lower nproc, or use another partition")
    return [f"{where}: {p}" for p in found]


def warnings(req: Request, run: Runner = slurm) -> list[str]:
    """What does not stop a submission but may keep the job pending."""
    part = _partition(req.slurm.partition, run)
    if isinstance(part, dict) and part.get("State", "UP") != "UP":
        return [f"partition {part['PartitionName']} is {part['State']}: the job pends until it "
                f"is UP (QUEUE_TIMEOUT = {req.slurm.queue_timeout_s:g} s)"]
    return []


def _partition(name: Optional[str], run: Runner) -> dict[str, str] | str:
    """The partition's scontrol fields, or why there is none."""
    argv = ["scontrol", "--oneliner", "show", "partition", *([name] if name else [])]
    result = run(argv)
    said = (result.stderr or result.stdout).strip()
    if not result.ok and "not found" in said.lower():
        return f"SLURM_PARTITION = {name!r}: Slurm has no such partition (`sinfo -s` lists them)"
    if not result.ok:
        raise SlurmError(f"Slurm is not reachable: `{' '.join(argv)}` said: {said[-300:]}: check "
                         "that slurmctld runs and that this master has the site's slurm.conf")
    parts = [commands.fields(line) for line in result.stdout.splitlines() if line.strip()]
    if name:
        return parts[0]
    default = [p for p in parts if p.get("Default") == "YES"]
    return default[0] if default else "no SLURM_PARTITION set and the cluster has no default partition"


def _gpus_per_node(partition: str, run: Runner) -> int:
    out = run(["sinfo", "--noheader", f"--partition={partition}", "--format=%G"])
    counts = [commands.gpus_in_gres(line.strip()) for line in out.stdout.splitlines() if line.strip()]
    return min(counts, default=0)
