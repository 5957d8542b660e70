"""After a run's last case: what the run left on any host removed.
"""

from __future__ import annotations

import logging
from pathlib import Path

from chipperf.config.model import ClusterConfig
from chipperf.containers import runtime
from chipperf.errors import GroupError
from chipperf.plan import RunPlan
from chipperf.remote import Host, HostGroup
from chipperf.remote.container import ContainerHost
from chipperf.run.lease import lease_path

log = logging.getLogger("chipperf")


def teardown(plan: RunPlan, cluster: ClusterConfig, hosts: HostGroup,
             keep: frozenset[str] | set[str] = frozenset()) -> None:
    """Remove whatever the run left on any host: containers (by label) and work dirs; the
    work dir of a host in ``keep`` stays, with the node files that could not come home. The
    hosts stay connected: the run's cluster lease is released on them before they close."""
    def clean(host: Host) -> None:
        if host.name in hosts.silent:   # every call would hang until its timeout
            log.error("[%s] does not answer: the run's %s and work dir stay there; %s removes "
                      "them once it answers again", host.name, _what(host),
                      _sweeper(host, plan))
            return
        try:
            left = runtime.remove_run_containers(host.docker(), plan.run_id)
        except Exception as exc:  # its engine is away: the work dir stays, to show whose they are
            log.error("[%s] the run's %s could not be removed (%s): its work dir stays so that "
                      "%s or the next run there removes them", host.name, _what(host), exc,
                      _sweeper(host, plan))
            return
        if left:
            log.warning("[%s] removed leftover containers: %s", host.name, ", ".join(left))
        if host.name in keep:
            return
        work = plan.work_dir(host.name, cluster.work_root)
        removed = host.run(["rm", "-rf", "--", work, lease_path(work)], check=False)
        if not removed.ok:
            log.warning("[%s] its work dir %s was not removed (%s): %s (or the next run "
                        "there) removes it", host.name, work,
                        (removed.stderr or removed.stdout).strip()[-300:], _sweeper(host, plan))
        host.run(["rmdir", str(Path(work).parent)], check=False)

    try:
        hosts.run_step("teardown", clean)
    except GroupError as exc:
        log.error("teardown incomplete: %s", exc)


def _what(host: Host) -> str:
    return f"processes in container {host.container!r}" if isinstance(host, ContainerHost) \
        else "containers"


def _sweeper(host: Host, plan: RunPlan) -> str:
    """The command that removes what the run left on ``host``: `chipperf collect` reads from
    the run's record where to look (IN_CONTAINER_NAME: inside that container)."""
    if isinstance(host, ContainerHost):
        return (f"`chipperf collect {plan.result_dir}` (or `chipperf clean --cluster CLUSTER "
                f"--in-container {host.container}`), once the container runs again,")
    return f"`chipperf collect {plan.result_dir}` (or `chipperf clean --cluster CLUSTER`)"
