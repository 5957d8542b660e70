"""Before a run's first case: every host's engine and sensors checked at once, its work dir
claimed (and leased), the code uploaded, what earlier runs left there swept.
"""

from __future__ import annotations

import io
import json
import logging
import platform
import tarfile
import time
from pathlib import Path
from typing import Any

from chipperf.config.model import ClusterConfig
from chipperf.containers.incontainer import InContainerEngine, node_power
from chipperf.errors import HostError
from chipperf.plan import RunPlan
from chipperf.remote import Host, HostGroup, each
from chipperf.remote.container import ContainerHost
from chipperf.run import precheck
from chipperf.run.clusterlease import ClusterLease
from chipperf.run.lease import hold_argv, lease_path
from chipperf.run.leftovers import sweep_host
from chipperf.run.record import RunRecord

log = logging.getLogger("chipperf")


ORIGIN = "origin.json"   # in each host's work dir: the run id and its result dir on the master


def preflight(plan: RunPlan, cluster: ClusterConfig, record: RunRecord, in_container: bool,
              opened: precheck.Opened) -> tuple[HostGroup, dict[str, frozenset[str]]]:
    """Take the hosts ``opened`` connected (chipperf.run.precheck, which has looked for the data
    dirs), check engines and sensors everywhere at once, upload the code.
    Returns the hosts and, per host, the sensor paths its monitor sidecars can mount.
    ``in_container``: the hosts are existing containers (IN_CONTAINER_LAUNCH): no work-dir
    lease is held and no earlier run's leftovers are swept there (chipperf starts no
    containers), except in the vendor's container IN_CONTAINER_NAME on each host, where
    earlier runs of that container left theirs; the cluster lease is held there too
    (chipperf.run.clusterlease)."""
    started = time.monotonic()
    hosts = opened.group()
    if in_container:
        for host in hosts.hosts.values():
            host.use_engine(InContainerEngine(host))
    claimed: list[Host] = []
    try:
        facts = hosts.run_step("check hosts", lambda h: _check_host(h, plan, in_container))
        for name, info in facts.items():
            record.host(name, **info)
        sensors = {name: frozenset(p for p, there in info["sensors"].items() if there)
                   for name, info in facts.items()}
        hosts.run_step("claim work dirs", lambda h: _claim(
            h, plan.work_dir(h.name, cluster.work_root), plan, claimed, _sweepable(h, in_container)))
        archive = _code_archive(plan)
        hosts.run_step("upload code", lambda h: _upload(h, archive, plan.work_dir(h.name, cluster.work_root)))
        if all(_sweepable(h, in_container) for h in hosts.hosts.values()):
            _sweep_earlier_runs(hosts, cluster, plan.run_id)
    except BaseException:
        for host in claimed:  # only what this run made: a dir it found belongs to another run
            work = plan.work_dir(host.name, cluster.work_root)
            _remove_quietly(host, work)
            host.run(["rm", "-f", "--", lease_path(work)], check=False)
            host.run(["rmdir", str(Path(work).parent)], check=False)
        raise   # the caller closes the hosts, after the run's cluster lease is released
    log.info("preflight on %d host(s): %.1f s (code archive %.1f KiB)", len(plan.hosts),
             time.monotonic() - started, len(archive) / 1024)
    return hosts, sensors


def _sweepable(host: Host, in_container: bool) -> bool:
    """Whether the run leases its work dir on ``host`` and sweeps what earlier runs left
    there: chipperf's own containers, and the vendor's container IN_CONTAINER_NAME (reached
    through the host, chipperf.remote.container); not the containers that are the hosts."""
    return not in_container or isinstance(host, ContainerHost)


def note_takeovers(lease: ClusterLease, hosts: HostGroup, record: RunRecord) -> None:
    """A host whose lease this run took over from a master that is gone: run.json says whose,
    and a port found in use there names that run when ss cannot tell (chipperf.run.rounds)."""
    for name in lease.taken_over:
        record.host(name, lease_taken_over_from=lease.taken_over[name].describe())
        hosts.earlier_holders[name] = lease.previous_holder(name) or ""


def _sweep_earlier_runs(hosts: HostGroup, cluster: ClusterConfig, run_id: str) -> None:
    """Files earlier runs left on these hosts (a host that came back, a full result root)
    are brought home to their run dirs, and what those runs left is removed."""
    done = each(list(hosts.hosts.values()), lambda h: sweep_host(
        h, cluster.work_root, skip=run_id, with_origin_only=True, swept_by=run_id), "sweep",
        key=lambda h: h.name, raise_errors=False)
    for name, swept in done.items():
        if isinstance(swept, BaseException):
            log.warning("[%s] looking for what earlier runs left failed: %s", name, swept)
            continue
        for run_dir in swept.closed:
            log.warning("[%s] closed %s/run.json as canceled: its master is gone", name, run_dir)
        for line in swept.collected:
            log.warning("[%s] brought home files an earlier run left: %s (marked late in its "
                        "run.json)", name, line)
        for line in swept.judged:
            log.warning("[%s] judged again: round %s", name, line)
        if swept.containers or swept.work_dirs:
            log.info("[%s] removed what earlier runs left: %s", name,
                     ", ".join(swept.containers + swept.work_dirs))


def _check_host(host: Host, plan: RunPlan, in_container: bool) -> dict[str, Any]:
    """The engine's facts and the sensors the monitor sidecar can mount; in an existing
    container (IN_CONTAINER_LAUNCH) nothing is mounted: whether RAPL reads there instead."""
    version = host.docker().version()
    log.info("[%s] Docker %s (%s)", host.name, version.get("Version"), version.get("KernelVersion"))
    facts = {"docker_version": version.get("Version"), "os": version.get("Os"),
             "kernel": version.get("KernelVersion"), "arch": version.get("Arch")}
    if not in_container:
        return {**facts, "sensors": {path: host.exists(path) for path in plan.sensor_paths()}}
    readable, line = node_power(host)
    (log.info if readable else log.warning)("[%s] node power: %s", host.name, line)
    return {**facts, "sensors": {}, "node_power": {"rapl": readable, "note": line}}


def _claim(host: Host, work_dir: str, plan: RunPlan, claimed: list[Host], lease: bool) -> None:
    """Create this run's work dir on the host; finding it there means another master started
    a run with the same id (the same second) on this host, and both would tear down the
    other's containers and files."""
    host.makedirs(str(Path(work_dir).parent))
    if lease:  # first: `chipperf clean` leaves this run alone while it lives
        _take_lease(host, work_dir)
    if not host.make_dir(work_dir):
        raise HostError(host.name, f"work dir {work_dir} exists already: another chipperf run "
                                   f"with id {plan.run_id} is using this host (started in the "
                                   "same second from another master?)",
                        "start the run again; if no run is going on, `chipperf clean` removes "
                        "what a crashed run left")
    claimed.append(host)


def _take_lease(host: Host, work_dir: str) -> None:
    try:
        host.hold(hold_argv(work_dir), timeout=30)
    except HostError as exc:  # the run goes on; only clean cannot tell it is going on
        log.warning("[%s] no lease on this run's work dir (%s): `chipperf clean` cannot tell "
                    "this run from a finished one while it runs", host.name, exc)


def _remove_quietly(host: Host, path: str) -> None:
    try:
        host.remove_tree(path)
    except HostError as exc:
        log.warning("[%s] could not remove %s: %s", host.name, path, exc)


def _upload(host: Host, archive: bytes, work_dir: str) -> None:
    host.put_archive(archive, work_dir)
    log.info("[%s] code uploaded to %s", host.name, work_dir)


def _code_archive(plan: RunPlan) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for upload in plan.uploads:
            tar.add(upload.source, arcname=upload.target,
                    filter=lambda t: None if "__pycache__" in t.name else t)
        origin = {"run_id": plan.run_id, "result_dir": str(plan.result_dir.absolute()),
                  "master": platform.node()}
        for target, text in (*plan.files, (ORIGIN, json.dumps(origin))):
            data = text.encode("utf-8")
            info = tarfile.TarInfo(target)
            info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()
