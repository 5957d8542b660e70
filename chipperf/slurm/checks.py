"""Before anything is queued: can Slurm give this request? One problem per thing that is
wrong (partition, nodes, time limit, GPUs), or one saying Slurm does not answer."""

from __future__ import annotations

from typing import Optional

from chipperf.slurm import commands
from chipperf.slurm.allocation import Runner, SlurmError, slurm
from chipperf.slurm.commands import Request

WHERE = "cluster config: EXECUTOR = 'slurm'"


def problems(req: Request, run: Runner = slurm) -> list[str]:
    """What Slurm cannot give (asked of scontrol/sinfo), and a SLURM_TIME_LIMIT too short to
    run one round."""
    return [*(f"{WHERE}: {p}" for p in _too_short(req)), *_partition_problems(req, run)]


def _partition_problems(req: Request, run: Runner) -> list[str]:
    where = WHERE
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
        needs = (f"the run needs a time limit of {req.time_limit_min} min (every round's "
                 f"deadline + {commands.TIME_MARGIN_S / 60:.0f} min)"
                 if req.slurm.time_limit_min is None else
                 f"SLURM_TIME_LIMIT = {req.time_limit_min} min")
        found.append(f"{needs} but partition {name} allows {part['MaxTime']}: lower ROUND_TIMEOUT "
                     "or repeat, or use another partition")
    if req.gpus_per_node:
        gpus = _gpus_per_node(name, run)
        if req.gpus_per_node > gpus:
            found.append(f"the cases need {req.gpus_per_node} GPU(s) per node (nproc) but the nodes "
                         f"of partition {name} have {gpus} (sinfo %G): lower nproc, or use another partition")
    return [f"{where}: {p}" for p in found]


def _too_short(req: Request) -> list[str]:
    """SLURM_TIME_LIMIT below the preflight margin plus one round's deadline: Slurm would
    end the job before a round could end by its own deadline."""
    if req.slurm.time_limit_min is None or req.time_limit_min >= req.first_round_min:
        return []
    return [f"SLURM_TIME_LIMIT = {req.time_limit_min} min is shorter than "
            f"{commands.TIME_MARGIN_S / 60:.0f} min for preflight, images and teardown plus one "
            f"round's deadline (ROUND_TIMEOUT): {req.first_round_min} min at least; the run would "
            f"need {req.needed_min} min for every round: raise SLURM_TIME_LIMIT, or leave it out "
            "to ask for the run's whole length"]


def warnings(req: Request, run: Runner = slurm) -> list[str]:
    """What does not stop a submission but may keep the job pending, or end it mid-run."""
    found = _cut_short(req)
    part = _partition(req.slurm.partition, run)
    if isinstance(part, dict) and part.get("State", "UP") != "UP":
        found.append(f"partition {part['PartitionName']} is {part['State']}: the job pends until "
                     f"it is UP (QUEUE_TIMEOUT = {req.slurm.queue_timeout_s:g} s)")
    return found


def _cut_short(req: Request) -> list[str]:
    """SLURM_TIME_LIMIT under the run's longest length (every round at its deadline)."""
    if req.slurm.time_limit_min is None or req.time_limit_min >= req.needed_min:
        return []
    return [f"SLURM_TIME_LIMIT = {req.time_limit_min} min is under the run's longest length, "
            f"{req.needed_min} min (every round's deadline + {commands.TIME_MARGIN_S / 60:.0f} "
            "min): should the rounds take that long, Slurm ends the job (TIMEOUT) mid-run; "
            "chipperf then stops the run at once, keeping the rounds measured before; raise "
            "SLURM_TIME_LIMIT or lower ROUND_TIMEOUT or repeat"]


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
