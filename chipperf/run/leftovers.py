"""What runs left on the hosts: their files brought home, then their containers and work dirs
removed, for every run that is not running (its host lease is free, chipperf.run.lease).

``chipperf collect RUN_DIR`` does this for one run, ``chipperf clean --cluster C`` for every
run on the cluster's hosts, and ``chipperf run`` for earlier runs on the hosts it uses.
IN_CONTAINER_NAME runs left their work dirs and processes inside the vendor's container on
each host: ``collect`` looks there when the run's record names the container, ``clean
--in-container NAME`` when told, and a run in that container before it starts.
Files that come home this way are marked late in the run's run.json (``late``: node dir ->
host and when), and the run's reports are written again. A run whose master is gone and whose
record still says "running" is closed by whichever of the three finds it: ``canceled``, with
why and who swept it (``swept``: by, at). Those changes to run.json are chipperf.run.abandoned's.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from chipperf.config.model import ClusterConfig
from chipperf.containers import runtime
from chipperf.containers.incontainer import InContainerEngine
from chipperf.containers.spec import LABEL_RUN
from chipperf.errors import ChipperfError, ConfigError, HostError
from chipperf.plan import host_label, host_work_dir
from chipperf.remote.container import ContainerHost, container_problems
from chipperf.remote.host import Host
from chipperf.run.abandoned import COLLECT, close_abandoned, mark_late, restore_fallback
from chipperf.run.lease import BUSY, busy_argv, lease_path, remove_argv

log = logging.getLogger("chipperf")
ORIGIN = "origin.json"
# How long `collect` waits for an ended master's lease to drop on a host it reaches: sshd ends
# the master's session when its connection closes, which a loaded host took seconds to do
# (a fresh-Debian .ci/run: collect right after the SIGKILL found one of two hosts still held)
LEASE_DROP_WAIT_S = 30.0
CLEAN = "chipperf clean"      # who swept, when `chipperf clean` did (`run` names its run id)


@dataclass
class Swept:
    """What one host had: per run id, what was collected, removed, or left and why."""
    host: str
    collected: list[str] = field(default_factory=list)     # <run_id>/<node dir>
    containers: list[str] = field(default_factory=list)    # container names removed
    work_dirs: list[str] = field(default_factory=list)     # removed
    left: list[str] = field(default_factory=list)          # "<what>: <why>"
    closed: list[str] = field(default_factory=list)        # run dirs whose record it closed
    judged: list[str] = field(default_factory=list)        # rounds judged again (chipperf.run.late)
    inside: str | None = None   # IN_CONTAINER_NAME: the containers are its processes


def sweep_host(host: Host, work_root: str, *, only: str | None = None,
               skip: str | None = None, with_origin_only: bool = False,
               master_gone: bool = False, swept_by: str = CLEAN) -> Swept:
    """Collect, then remove, what every run that is not running left on ``host`` (only the
    run ``only`` when given; never ``skip``). ``with_origin_only``: leave dirs chipperf did
    not mark as its own (origin.json). ``master_gone``: the master of ``only`` is known to
    have ended, so a lease still held is its SSH session the host has not yet dropped.
    ``swept_by``: who sweeps (a run id, or CLEAN), named in a record it closes."""
    swept = Swept(host.name, inside=host.container if isinstance(host, ContainerHost) else None)
    dirs = _run_dirs(host, work_root)
    containers = _containers(host)
    for run_id in sorted(set(dirs) | set(containers)):
        if (only and run_id != only) or run_id == skip:
            continue
        if run_id not in dirs:   # its work dir is not here: maybe another WORK_ROOT's run
            if not with_origin_only:
                _remove_stopped(containers[run_id], run_id, swept)
            continue
        work = host_work_dir(work_root, run_id, host.name)
        origin = _origin(host, work)
        if origin is None and with_origin_only:
            swept.left.append(f"{work}: not marked as a chipperf run's ({ORIGIN} missing)")
            continue
        # before its lease here is asked: a host may hold a killed master's lease a while
        _close_if_abandoned(origin, run_id, swept_by, swept)
        if master_gone and _busy(host, work, LEASE_DROP_WAIT_S):
            swept.left.append(f"{run_id}: its lease here is still held by the ended master's "
                              "SSH session (a host that was cut off drops it once it hears "
                              "from this machine again, within a minute or two): run "
                              "`chipperf collect` again")
            continue
        if not master_gone and _busy(host, work):
            swept.left.append(f"{run_id}: running (its master holds the run's lease)")
            continue
        if not _collect(host, work, run_id, origin, swept):
            continue
        for container in containers.get(run_id, []):
            runtime.remove(container)
            swept.containers.append(container.name)
        _remove(host, work, swept)
    return swept


def _close_if_abandoned(origin: dict[str, Any] | None, run_id: str, swept_by: str,
                        swept: Swept) -> None:
    """The run's record, when it is on this machine, closed if its master is gone."""
    run_dir = Path(origin["result_dir"]) if origin and origin.get("result_dir") else None
    if run_dir is None or not _is_run_dir(run_dir, run_id):
        return
    try:
        if close_abandoned(run_dir, swept_by):
            swept.closed.append(str(run_dir))
    except OSError as exc:   # a result root that cannot take it: said, the sweep goes on
        swept.left.append(f"{run_dir}/run.json: not closed ({exc}): `chipperf collect "
                          f"{run_dir}` closes it once the result root takes it")


def _remove_stopped(found: list[Any], run_id: str, swept: Swept) -> None:
    """Containers of a run with no work dir under this WORK_ROOT: the stopped ones go; a
    running one may belong to a run of another work root, and is only named."""
    for container in found:
        if getattr(container, "status", "") == "running":
            swept.left.append(f"container {container.name}: running, and its run {run_id} has "
                              "no work dir under WORK_ROOT here (a run of another cluster "
                              "config?): `docker rm -f` it if it is stale")
        else:
            runtime.remove(container)
            swept.containers.append(container.name)


def _run_dirs(host: Host, work_root: str) -> set[str]:
    found = host.run(["find", work_root, "-mindepth", "2", "-maxdepth", "2", "-type", "d",
                      "-name", host_label(host.name)], check=False)
    return {Path(line).parent.name for line in found.stdout.splitlines() if line.strip()}


def _containers(host: Host) -> dict[str, list[Any]]:
    by_run: dict[str, list[Any]] = {}
    for c in host.docker().containers.list(all=True, filters={"label": LABEL_RUN}):
        by_run.setdefault(c.labels.get(LABEL_RUN, ""), []).append(c)
    return by_run


def _busy(host: Host, work: str, wait_s: float = 0.0) -> bool:
    """Whether the run holds its lease here, still after ``wait_s`` seconds of asking once a
    second (a dir without a lease file has no holder: it is not made, so nothing is left in
    another run's dir)."""
    deadline = time.monotonic() + wait_s
    while host.exists(lease_path(work)) and \
            host.run(busy_argv(work), check=False).exit_code == BUSY:
        if time.monotonic() >= deadline:
            return True
        time.sleep(1.0)
    return False


def _collect(host: Host, work: str, run_id: str, origin: dict[str, Any] | None,
             swept: Swept) -> bool:
    """Bring the node dirs under ``work`` home; False when the dir must stay."""
    nodes = _node_dirs(host, work)
    if not nodes:
        return True
    run_dir = Path(origin["result_dir"]) if origin else None
    if origin and origin.get("master") == platform.node() and run_dir and not run_dir.exists():
        swept.left.append(f"{work}: its run dir {run_dir} no longer exists on this master: "
                          f"its {len(nodes)} node dir(s) are removed with it")
        return True
    if run_dir is None or not _is_run_dir(run_dir, run_id):
        swept.left.append(f"{work}: {len(nodes)} node dir(s) of results not collected: their "
                          f"run dir {run_dir or '(unknown)'} is not on this machine; run "
                          "`chipperf collect RUN_DIR` on the run's master")
        return False
    try:
        for rel in nodes:
            host.get_dir(f"{work}/results/{rel}", run_dir / rel)
            swept.collected.append(f"{run_id}/{rel}")
        swept.judged += mark_late(run_dir, host.name, nodes)
    except (HostError, OSError) as exc:
        swept.left.append(f"{work}: collecting into {run_dir} failed ({exc}); the files stay "
                          f"on {host.name}: `chipperf collect {run_dir}` again once it has room")
        return False
    return True


def _origin(host: Host, work: str) -> dict[str, Any] | None:
    result = host.run(["cat", f"{work}/{ORIGIN}"], check=False)
    try:
        return dict(json.loads(result.stdout)) if result.ok else None
    except ValueError:
        return None


def _node_dirs(host: Host, work: str) -> list[str]:
    found = host.run(["find", f"{work}/results", "-mindepth", "3", "-maxdepth", "3",
                      "-type", "d"], check=False)
    prefix = f"{work}/results/"
    return sorted(line[len(prefix):] for line in found.stdout.splitlines()
                  if line.startswith(prefix))


def _is_run_dir(run_dir: Path, run_id: str) -> bool:
    try:
        return json.loads((run_dir / "run.json").read_text()).get("run_id") == run_id
    except (OSError, ValueError):
        return False


def _remove(host: Host, work: str, swept: Swept) -> None:
    if host.run(remove_argv(work), check=False).exit_code == BUSY:
        swept.left.append(f"{work}: its run started holding it meanwhile")
        return
    host.run(["rm", "-f", "--", lease_path(work)], check=False)
    host.run(["rmdir", "--", str(Path(work).parent)], check=False)
    swept.work_dirs.append(work)


def cluster_of(run_dir: Path) -> tuple[str, ClusterConfig, list[str]]:
    """(run id, cluster config, hosts it used) from a run dir's run.json."""
    try:
        record = json.loads((Path(run_dir) / "run.json").read_text())
    except (OSError, ValueError) as exc:
        raise ChipperfError(f"{run_dir}: no readable run.json ({exc})") from exc
    known = {f.name for f in dataclasses.fields(ClusterConfig)}
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
              for k, v in record.get("cluster", {}).items() if k in known}
    values.pop("slurm", None)   # the run's nodes are its recorded hosts: collect uses SSH
    values.pop("executor", None)
    cluster = ClusterConfig(**values)
    return record["run_id"], cluster, list(record.get("hosts") or cluster.hosts)


def container_of(run_dir: Path) -> str | None:
    """IN_CONTAINER_NAME of the run (None: its cases ran on the hosts or in containers it
    started)."""
    test = json.loads((Path(run_dir) / "run.json").read_text()).get("test") or {}
    return test.get("in_container_name") if test.get("in_container_launch") else None


def describe(swept: Swept) -> list[str]:
    """Lines saying what was done on one host."""
    kind, where = ("process", f" in container {swept.inside}") if swept.inside else ("container", "")
    lines = [f"{swept.host}: collected {len(swept.collected)} node dir(s), removed "
             f"{len(swept.containers)} {kind}{'(es)' if swept.inside else '(s)'} and "
             f"{len(swept.work_dirs)} work dir(s){where}"]
    lines += [f"  collected {c}" for c in swept.collected]
    lines += [f"  removed {kind} {c}" for c in swept.containers]
    lines += [f"  removed {w}" for w in swept.work_dirs]
    lines += [f"  closed {c}/run.json as canceled (its master is gone)" for c in swept.closed]
    lines += [f"  round {j}" for j in swept.judged]
    lines += [f"  left {w}" for w in swept.left]
    return lines


def collect(run_dir: Path) -> tuple[list[Swept], list[str]]:
    """`chipperf collect`: one run's record put back from its fallback copy and closed if its
    master is gone, its files still on its hosts brought home (their rounds judged again),
    then its containers and work dirs removed; (what each host had, hosts not reached)."""
    from chipperf.run.lease import MASTER_LOCK, master_alive
    from chipperf.run.record import write_reports

    run_dir = Path(run_dir)
    if master_alive(run_dir):
        raise ChipperfError(f"{run_dir}: the run is going on (its master holds it); it collects "
                            "its own files when its rounds end")
    try:
        restored = restore_fallback(run_dir)
        closed = close_abandoned(run_dir)
        if master_alive(run_dir) is False:   # a master that could not remove it (read-only)
            (run_dir / MASTER_LOCK).unlink()
    except OSError as exc:
        raise ChipperfError(f"{run_dir}: its run.json cannot be written there ({exc}): give "
                            f"the result root room (or make it writable) and run `chipperf "
                            f"collect {run_dir}` again; nothing was taken from the hosts") from exc
    run_id, cluster, hosts = cluster_of(run_dir)
    done = on_hosts(hosts, cluster, lambda h: sweep_host(h, cluster.work_root, only=run_id,
                                                         master_gone=True, swept_by=COLLECT),
                    container_of(run_dir))
    if (restored or closed) and not any(s.collected for s in done[0]):
        write_reports(run_dir)   # (files that came home wrote them already)
    return done


def clean(cluster: ClusterConfig, container: str | None = None
          ) -> tuple[list[Swept], list[str]]:
    """`chipperf clean`: on every host, what every run that is not running left (``container``:
    IN_CONTAINER_NAME, inside that running container on each host instead)."""
    from chipperf.config.load import CONTAINER_NAME

    if container is not None and not CONTAINER_NAME.fullmatch(container):
        raise ConfigError([f"--in-container: {container!r} is not a Docker container name: "
                           "give the name `docker ps` shows on the hosts (IN_CONTAINER_NAME)"])
    if cluster.executor == "slurm":
        raise ConfigError(["cluster config: EXECUTOR = 'slurm' names no hosts to clean: "
                           "`chipperf collect <run dir>` cleans the nodes a run recorded, or "
                           "give `chipperf clean` a cluster config whose HOSTS lists the nodes"])
    return on_hosts(cluster.hosts, cluster, lambda h: sweep_host(h, cluster.work_root,
                                                                 swept_by=CLEAN), container)


def on_hosts(addresses: Sequence[str], cluster: ClusterConfig, fn: Any,
             container: str | None = None) -> tuple[list[Swept], list[str]]:
    """``fn`` on every host (or, ``container``, in its running container of that name)."""
    from chipperf.remote import each
    from chipperf.remote.host import open_host

    def one(address: str) -> Swept:
        host = open_host(address, cluster)
        try:
            return fn(host if container is None else inside(host, container))
        finally:
            host.close()

    results = each(list(addresses), one, "sweep", raise_errors=False)
    swept = [r for r in results.values() if isinstance(r, Swept)]
    failed = [f"{a}: {r}" for a, r in results.items() if isinstance(r, BaseException)]
    return swept, failed


def inside(host: Host, container: str) -> Host:
    """``host``'s running container ``container`` as a host whose engine lists and removes the
    processes IN_CONTAINER_LAUNCH started there; HostError when it is not running there."""
    problems = container_problems(host, container, multi_node=False)
    if problems:
        raise HostError(host.name, "; ".join(problems))
    there = ContainerHost(host, container)
    there.use_engine(InContainerEngine(there))
    return there
